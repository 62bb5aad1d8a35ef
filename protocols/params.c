// SPDX-License-Identifier: MIT
/* E-Trace encoder parameters: defaults, set/get by name, consistency check. */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spoor/error.h"
#include "spoor/params.h"

struct param_desc {
	const char *name;
	size_t offset;		/* into struct spoor_params */
	long min, max;
	bool is_int;		/* int field (ioption bits), else unsigned */
};

#define P(field, lo, hi) \
	{ #field, offsetof(struct spoor_params, field), lo, hi, false }
#define IOPT(name, idx) \
	{ name, offsetof(struct spoor_params, ioption_bit) + (idx) * sizeof(int), -1, 63, true }

/* Ranges follow the spec where it gives one; widths are 0..64 bits. */
static const struct param_desc params_table[] = {
	P(arch_p, 0, 255),
	P(bpred_size_p, 0, 31),
	P(cache_size_p, 0, 31),
	P(call_counter_size_p, 0, 63),
	P(context_width_p, 0, 64),
	P(time_width_p, 0, 64),
	P(ecause_width_p, 0, 64),
	P(f0s_width_p, 0, 8),
	P(iaddress_lsb_p, 0, 63),
	P(iaddress_width_p, 1, 64),
	P(nocontext_p, 0, 1),
	P(notime_p, 0, 1),
	P(privilege_width_p, 0, 64),
	P(return_stack_size_p, 0, 62),
	P(sijump_p, 0, 1),
	P(comparators_p, 0, 255),
	P(filters_p, 0, 255),
	P(ecause_choice_p, 0, 64),
	P(filter_context_p, 0, 1),
	P(filter_time_p, 0, 1),
	P(filter_excint_p, 0, 64),
	P(filter_privilege_p, 0, 1),
	P(filter_tval_p, 0, 1),
	P(ctype_width_p, 0, 64),
	P(ilastsize_width_p, 0, 64),
	P(itype_width_p, 0, 64),
	P(iretire_width_p, 0, 64),
	P(retires_p, 0, 1024),
	P(taken_branches_p, 0, 1024),
	P(impdef_width_p, 0, 64),
	P(blocks_p, 0, 1024),
	P(encoder_mode_width_p, 0, 64),
	P(ioptions_width_p, 0, 64),
	P(support_data_p, 0, 1),
	P(doptions_width_p, 0, 64),
	IOPT("ioption_implicit_return_p", SPOOR_IOPT_IMPLICIT_RETURN),
	IOPT("ioption_implicit_exception_p", SPOOR_IOPT_IMPLICIT_EXCEPTION),
	IOPT("ioption_full_address_p", SPOOR_IOPT_FULL_ADDRESS),
	IOPT("ioption_jump_target_cache_p", SPOOR_IOPT_JUMP_TARGET_CACHE),
	IOPT("ioption_branch_prediction_p", SPOOR_IOPT_BRANCH_PREDICTION),
	IOPT("ioption_sijump_p", SPOOR_IOPT_SIJUMP),
};

#define NPARAMS (sizeof(params_table) / sizeof(params_table[0]))

void spoor_params_init(struct spoor_params *p)
{
	memset(p, 0, sizeof(*p));
	/* Defaults of the spec's required attributes table (value + 1 where
	 * the attribute is "width - 1"). */
	p->context_width_p = 1;
	p->time_width_p = 1;
	p->ecause_width_p = 4;
	p->iaddress_lsb_p = 1;
	p->iaddress_width_p = 32;
	p->nocontext_p = 1;
	p->notime_p = 1;
	p->privilege_width_p = 2;
	/* The reference flow's support packet layout. */
	p->encoder_mode_width_p = 1;
	p->ioptions_width_p = 5;
	p->support_data_p = 1;
	p->doptions_width_p = 4;
	p->ioption_bit[SPOOR_IOPT_IMPLICIT_RETURN] = 0;
	p->ioption_bit[SPOOR_IOPT_IMPLICIT_EXCEPTION] = 1;
	p->ioption_bit[SPOOR_IOPT_FULL_ADDRESS] = 2;
	p->ioption_bit[SPOOR_IOPT_JUMP_TARGET_CACHE] = 3;
	p->ioption_bit[SPOOR_IOPT_BRANCH_PREDICTION] = 4;
	p->ioption_bit[SPOOR_IOPT_SIJUMP] = -1;
}

static const struct param_desc *find_param(const char *key)
{
	for (size_t i = 0; i < NPARAMS; i++)
		if (strcmp(params_table[i].name, key) == 0)
			return &params_table[i];
	return NULL;
}

/* Parses a decimal or 0x-prefixed number with optional surrounding blanks. */
static int parse_long(const char *s, long *out)
{
	char *end;
	long v;

	while (*s == ' ' || *s == '\t')
		s++;
	if (*s == '\0')
		return SPOOR_E_BAD_VALUE;
	errno = 0;
	v = strtol(s, &end, 0);
	if (errno == ERANGE)
		return SPOOR_E_RANGE;
	while (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n')
		end++;
	if (end == s || *end != '\0')
		return SPOOR_E_BAD_VALUE;
	*out = v;
	return 0;
}

int spoor_params_set(struct spoor_params *p, const char *key, const char *value)
{
	const struct param_desc *d;
	long v;
	int ret;

	if (!p || !key || !value)
		return SPOOR_E_INVAL;
	d = find_param(key);
	if (!d)
		return SPOOR_E_UNKNOWN_KEY;
	if (d->is_int && strcmp(value, "none") == 0) {
		v = -1;
	} else {
		ret = parse_long(value, &v);
		if (ret)
			return ret;
	}
	if (v < d->min || v > d->max)
		return SPOOR_E_RANGE;
	if (d->is_int)
		*(int *)((char *)p + d->offset) = (int)v;
	else
		*(unsigned *)((char *)p + d->offset) = (unsigned)v;
	return 0;
}

int spoor_params_get(const struct spoor_params *p, const char *key, long *value)
{
	const struct param_desc *d;

	if (!p || !key || !value)
		return SPOOR_E_INVAL;
	d = find_param(key);
	if (!d)
		return SPOOR_E_UNKNOWN_KEY;
	if (d->is_int)
		*value = *(const int *)((const char *)p + d->offset);
	else
		*value = *(const unsigned *)((const char *)p + d->offset);
	return 0;
}

/* Edit distance of @a and @b (at most 63 characters each, else a large number). */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), row[64];

	if (la > 63 || lb > 63)
		return SIZE_MAX;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];

		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j], best = diag + (a[i - 1] != b[j - 1]);

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	return row[lb];
}

void spoor_params_describe(const char *key, char *buf, size_t size)
{
	const struct param_desc *d = key ? find_param(key) : NULL;
	size_t best = SIZE_MAX, dist;
	const char *near = NULL;

	if (!buf || !size)
		return;
	if (d) {
		snprintf(buf, size, d->is_int ? "a bit number from 0 to %ld, or 'none'" :
			 "a number from %ld to %ld", d->is_int ? d->max : d->min, d->max);
		return;
	}
	for (size_t i = 0; key && i < NPARAMS; i++) {
		dist = edit_distance(key, params_table[i].name);
		if (dist < best) {
			best = dist;
			near = params_table[i].name;
		}
	}
	if (near && best <= 3)
		snprintf(buf, size, "not an encoder parameter; did you mean '%s'?", near);
	else
		snprintf(buf, size, "not an encoder parameter (the E-Trace spec's parameter "
			 "tables list them; boards/virt-rv64.ini uses the common ones)");
}

size_t spoor_params_count(void)
{
	return NPARAMS;
}

const char *spoor_params_name(size_t i)
{
	return i < NPARAMS ? params_table[i].name : NULL;
}

int spoor_params_check(const struct spoor_params *p, const char **why)
{
	const char *reason = NULL;

	if (!p)
		return SPOOR_E_INVAL;
	if (p->iaddress_lsb_p >= p->iaddress_width_p)
		reason = "iaddress_lsb_p must be below iaddress_width_p";
	else if (spoor_params_irdepth_width(p) > 64)
		reason = "irdepth is wider than 64 bits";
	else if (p->ioptions_width_p > 64 || p->doptions_width_p > 64)
		reason = "ioptions/doptions wider than 64 bits";
	else if (p->f0s_width_p == 0 && p->bpred_size_p && p->cache_size_p)
		reason = "f0s_width_p must be non-zero when both the branch predictor and the jump target cache exist";
	for (int i = 0; !reason && i < SPOOR_IOPT_COUNT; i++)
		if (p->ioption_bit[i] >= (int)p->ioptions_width_p)
			reason = "an ioption_*_p bit lies outside ioptions_width_p";
	if (why)
		*why = reason;
	return reason ? SPOOR_E_BAD_CONFIG : 0;
}
