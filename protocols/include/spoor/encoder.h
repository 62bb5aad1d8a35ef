/* SPDX-License-Identifier: MIT */
/*
 * E-Trace v2.0 instruction trace encoder model ("Reference Compressed
 * Branch Trace Algorithm"): one ingress record per retired (or trapping)
 * instruction in, te_inst packets out.
 *
 * The model keeps the spec's 3-stage pipeline (previous, current, next
 * instruction) and decides the packets of the current instruction each time
 * a record is pushed.  It is pure (no I/O, no globals), streaming and runs in
 * memory fixed by the parameters (return stack, jump target cache and branch
 * predictor tables).
 *
 * Use: new(), then push() records; after each push (and after finish())
 * call next() until it returns 0.  finish() ends tracing: the final
 * packets, then a support packet with ienable 0 and qual_status ended_rep
 * or ended_ntr.
 */
#ifndef SPOOR_ENCODER_H
#define SPOOR_ENCODER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "spoor/params.h"
#include "spoor/te_inst.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Ingress itype values (spec table "Instruction Type (itype) encoding"). */
enum spoor_itype {
	SPOOR_ITYPE_NONE = 0,
	SPOOR_ITYPE_EXCEPTION = 1,
	SPOOR_ITYPE_INTERRUPT = 2,
	SPOOR_ITYPE_TRAP_RETURN = 3,		/* exception or interrupt return (xret) */
	SPOOR_ITYPE_NOT_TAKEN = 4,		/* nontaken branch */
	SPOOR_ITYPE_TAKEN = 5,			/* taken branch */
	SPOOR_ITYPE_UNINFERABLE = 6,		/* uninferable jump (itype_width_p 3 only) */
	SPOOR_ITYPE_UNINF_CALL = 8,		/* the rest: itype_width_p 4 only */
	SPOOR_ITYPE_INF_CALL = 9,
	SPOOR_ITYPE_UNINF_JUMP = 10,		/* uninferable, no linkage (tail call) */
	SPOOR_ITYPE_INF_JUMP = 11,		/* inferable, no linkage */
	SPOOR_ITYPE_COROUTINE_SWAP = 12,
	SPOOR_ITYPE_RETURN = 13,
	SPOOR_ITYPE_UNINF_OTHER = 14,		/* other uninferable jump with linkage */
	SPOOR_ITYPE_INF_OTHER = 15,		/* other inferable jump with linkage */
};

/* Ingress ctype values (spec table "Context type ctype values"). */
enum spoor_ctype {
	SPOOR_CTYPE_UNREPORTED = 0,
	SPOOR_CTYPE_IMPRECISE = 1,
	SPOOR_CTYPE_PRECISE = 2,
	SPOOR_CTYPE_ASYNC = 3,		/* treated as a precise change */
};

/*
 * One block of the single-retirement ingress port: a retired instruction,
 * or (iretire 0, itype 1/2) an instruction that trapped without retiring.
 * Records with iretire 0 and any other itype carry no instruction and are
 * ignored.
 */
struct spoor_ingress {
	uint8_t itype;		/* enum spoor_itype */
	uint8_t iretire;	/* 1: the instruction retired; 0: it trapped (itype 1/2) */
	uint8_t ilastsize;	/* instruction size: 2^ilastsize half-words (0: 2 bytes, 1: 4) */
	uint8_t priv;		/* privilege (0 U, 1 S/HS, 3 M, 4 D, ...) */
	uint8_t ctype;		/* enum spoor_ctype: how to report a change of context */
	bool sijump;		/* an uninferable jump whose target the preceding auipc,
				 * lui or c.lui (retired just before) fixes */
	bool notify;		/* trigger[2]: report this instruction's address */
	uint64_t iaddr;		/* instruction address */
	uint64_t cause;		/* exception or interrupt cause (itype 1/2) */
	uint64_t tval;		/* trap value (itype 1) */
	uint64_t context;
	uint64_t time;
};

/* Default packets between two synchronisations (the reference's resync-max 0). */
#define SPOOR_ENC_RESYNC_DEFAULT 16

struct spoor_encoder_config {
	const struct spoor_params *params;	/* kept by pointer: must outlive the encoder */
	uint32_t options;			/* enum spoor_option */
	/*
	 * Resynchronisation timer, counted in packets like the reference
	 * encoder: a format 3 sync follows once more than resync_max packets
	 * were sent since the last one (a format 1 with the pending branches
	 * goes first).  0 means SPOOR_ENC_RESYNC_DEFAULT.  The reference flow's
	 * ucf key resync-max holds an exponent: its value v means
	 * 1 << (v + 4) packets.
	 */
	unsigned resync_max;
	/*
	 * Reproduce the reference flow's encoder (referenceFlow/scripts/
	 * encoder_model.py) byte for byte where it departs from the spec:
	 *  - an irdepth that reports nothing is all ones, not copies of
	 *    updiscon (SPOOR_TE_IRDEPTH_ONES);
	 *  - finish() runs the last instruction with itself as the next one,
	 *    then always sends one more format 1/2 packet for it, and the final
	 *    support packet always says ended_rep;
	 *  - an instruction that trapped without retiring goes through the
	 *    whole algorithm like a retired one (a resync or the first traced
	 *    instruction then gets a format 3.0 with its address, which a
	 *    decoder reports as retired, and it may be reported by a format 1/2
	 *    packet when the next one traps as well);
	 *  - after a 3.1 with thaddr 0 for a trap in the first instruction of a
	 *    handler, the next trap is taken as reported when the instruction
	 *    after that traps as well (the handler gets a 3.0, the trap's cause
	 *    is not sent).
	 * Everything else (the options the reference does not implement) is
	 * the same in both modes.
	 */
	bool reference_quirks;
};

/* What the encoder did, for tests and tools. */
struct spoor_encoder_stats {
	uint64_t records;		/* instructions pushed (retired or trapping) */
	uint64_t packets;		/* packets produced */
	uint64_t format[4];		/* packets per format */
	uint64_t sync[4];		/* format 3 packets per subformat */
	uint64_t jtc_hits;		/* format 0.1 packets */
	uint64_t counts;		/* format 0.0 packets */
	/*
	 * Packets whose status bits cannot rule out every wrong stopping point
	 * for a decoder (irdepth would also match an earlier implicit return
	 * on the path; a notify-stop after an inferred jump).  See encoder.c.
	 */
	uint64_t ambiguous;
};

struct spoor_encoder;

/*
 * Checks @cfg: parameters consistent, options the parameters allow
 * (implicit return needs itype_width_p 4; branch prediction needs
 * bpred_size_p, the jump target cache cache_size_p, both of them f0s_width_p;
 * tables of at most 2^20 entries).  Returns 0 or SPOOR_E_INVAL /
 * SPOOR_E_BAD_CONFIG; @why (may be NULL) gets a static reason.
 */
int spoor_encoder_check_config(const struct spoor_encoder_config *cfg, const char **why);

/* Returns a new encoder (its first packet, a support packet, is pending),
 * or NULL (bad configuration, see spoor_encoder_check_config(), or no memory). */
struct spoor_encoder *spoor_encoder_new(const struct spoor_encoder_config *cfg);
void spoor_encoder_free(struct spoor_encoder *enc);

/*
 * Gives the encoder the next ingress record.  Returns 0, SPOOR_E_INVAL
 * (NULL, after finish(), an itype the itype_width_p does not have),
 * or SPOOR_E_NOSPACE (packets still pending: drain them with next()).
 */
int spoor_encoder_push(struct spoor_encoder *enc, const struct spoor_ingress *rec);

/*
 * Tracing stops after the last record pushed: queues the final packets and
 * the support packet (ienable 0, ended_rep or ended_ntr).  Returns 0,
 * SPOOR_E_INVAL (NULL, called twice) or SPOOR_E_NOSPACE (packets pending).
 */
int spoor_encoder_finish(struct spoor_encoder *enc);

/* Returns 1 with the next packet in @pkt, 0 when none is pending, or SPOOR_E_INVAL. */
int spoor_encoder_next(struct spoor_encoder *enc, struct spoor_te_inst *pkt);

/*
 * Returns the run-time layout options (enum spoor_te_layout) to serialize
 * this encoder's packets with spoor_te_inst_encode_layout():
 * SPOOR_TE_IMPLICIT_EXCEPTION when trap packets omit the handler address.
 */
uint32_t spoor_encoder_layout(const struct spoor_encoder *enc);

/* Copies the counters.  Returns 0 or SPOOR_E_INVAL. */
int spoor_encoder_stats(const struct spoor_encoder *enc, struct spoor_encoder_stats *st);

#ifdef __cplusplus
}
#endif

#endif /* SPOOR_ENCODER_H */
