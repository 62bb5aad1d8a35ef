/* SPDX-License-Identifier: MIT */
/*
 * E-Trace encoder parameters (spec v2.0, "Parameters and Discovery") and the
 * implementation-defined layout of the format 3 subformat 3 (support) packet.
 *
 * Parameters are set by name, with range checks, so that any front end (the
 * reference flow's *.scf files, our INI board files, discovery registers)
 * shares one table.  Pure: no I/O.
 */
#ifndef SPOOR_PARAMS_H
#define SPOOR_PARAMS_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bit positions of the optional modes in the support packet's ioptions. */
enum spoor_ioption {
	SPOOR_IOPT_IMPLICIT_RETURN,
	SPOOR_IOPT_IMPLICIT_EXCEPTION,
	SPOOR_IOPT_FULL_ADDRESS,
	SPOOR_IOPT_JUMP_TARGET_CACHE,
	SPOOR_IOPT_BRANCH_PREDICTION,
	SPOOR_IOPT_SIJUMP,
	SPOOR_IOPT_COUNT
};

/* Run-time options of the encoder and the decoder, as a bit set: bit i is
 * ioption i.  The support packet's ioptions field carries them. */
enum spoor_option {
	SPOOR_OPT_IMPLICIT_RETURN = 1 << SPOOR_IOPT_IMPLICIT_RETURN,
	SPOOR_OPT_IMPLICIT_EXCEPTION = 1 << SPOOR_IOPT_IMPLICIT_EXCEPTION,
	SPOOR_OPT_FULL_ADDRESS = 1 << SPOOR_IOPT_FULL_ADDRESS,
	SPOOR_OPT_JUMP_TARGET_CACHE = 1 << SPOOR_IOPT_JUMP_TARGET_CACHE,
	SPOOR_OPT_BRANCH_PREDICTION = 1 << SPOOR_IOPT_BRANCH_PREDICTION,
	SPOOR_OPT_SIJUMP = 1 << SPOOR_IOPT_SIJUMP,
	SPOOR_OPT_ALL = (1 << SPOOR_IOPT_COUNT) - 1,
};

struct spoor_params {
	/* Required attributes (decoder needs them). */
	unsigned arch_p;
	unsigned bpred_size_p;		/* 2^n predictor entries, 0 = none */
	unsigned cache_size_p;		/* 2^n jump target cache entries, 0 = none */
	unsigned call_counter_size_p;
	unsigned context_width_p;
	unsigned time_width_p;
	unsigned ecause_width_p;
	unsigned f0s_width_p;
	unsigned iaddress_lsb_p;
	unsigned iaddress_width_p;
	unsigned nocontext_p;
	unsigned notime_p;
	unsigned privilege_width_p;
	unsigned return_stack_size_p;
	unsigned sijump_p;

	/* Optional filtering and other recommended attributes (recorded only). */
	unsigned comparators_p, filters_p, ecause_choice_p;
	unsigned filter_context_p, filter_time_p, filter_excint_p;
	unsigned filter_privilege_p, filter_tval_p;
	unsigned ctype_width_p, ilastsize_width_p, itype_width_p;
	unsigned iretire_width_p, retires_p, taken_branches_p, impdef_width_p;
	unsigned blocks_p;

	/*
	 * Support packet layout (implementation-defined; the defaults are the
	 * reference flow's): encoder_mode, qual_status (2), ioptions, then
	 * denable (1), dloss (1) and doptions when support_data_p is 1.
	 */
	unsigned encoder_mode_width_p;
	unsigned ioptions_width_p;
	unsigned support_data_p;
	unsigned doptions_width_p;
	/* Bit of each optional mode in ioptions; -1 when not reported. */
	int ioption_bit[SPOOR_IOPT_COUNT];
};

/* Fills @p with the spec's defaults plus the reference flow's support layout. */
void spoor_params_init(struct spoor_params *p);

/*
 * Sets parameter @key from the decimal or 0x-hex string @value.
 * Returns 0, SPOOR_E_UNKNOWN_KEY, SPOOR_E_BAD_VALUE or SPOOR_E_RANGE.
 */
int spoor_params_set(struct spoor_params *p, const char *key, const char *value);

/*
 * Checks the combination of parameters (e.g. iaddress_lsb_p below
 * iaddress_width_p, irdepth no wider than 64 bits).
 * Returns 0 or SPOOR_E_BAD_CONFIG; @why (may be NULL) gets a static reason.
 */
int spoor_params_check(const struct spoor_params *p, const char **why);

/* Number of known parameter names; name of the i-th (for listings). */
size_t spoor_params_count(void);
const char *spoor_params_name(size_t i);
/*
 * Writes what parameter @key accepts to @buf ("a number from 0 to 64"), or
 * for an unknown key the known name closest to it ("not an encoder
 * parameter; did you mean 'notime_p'?").  Always NUL-terminates.
 */
void spoor_params_describe(const char *key, char *buf, size_t size);
/* Current value of parameter @key in *@value; 0 or SPOOR_E_UNKNOWN_KEY. */
int spoor_params_get(const struct spoor_params *p, const char *key, long *value);

/* Width of irdepth: return_stack_size_p + (return_stack_size_p > 0) + call_counter_size_p. */
static inline unsigned spoor_params_irdepth_width(const struct spoor_params *p)
{
	return p->return_stack_size_p + (p->return_stack_size_p > 0 ? 1 : 0) +
	       p->call_counter_size_p;
}

/* Width of the te_inst address field: iaddress_width_p - iaddress_lsb_p. */
static inline unsigned spoor_params_address_width(const struct spoor_params *p)
{
	return p->iaddress_width_p - p->iaddress_lsb_p;
}

static inline unsigned spoor_params_time_width(const struct spoor_params *p)
{
	return p->notime_p ? 0 : p->time_width_p;
}

static inline unsigned spoor_params_context_width(const struct spoor_params *p)
{
	return p->nocontext_p ? 0 : p->context_width_p;
}

#ifdef __cplusplus
}
#endif

#endif /* SPOOR_PARAMS_H */
