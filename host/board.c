// SPDX-License-Identifier: MIT
/* Board descriptors (INI files, parsed with libinih). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spoor/board.h"
#include "spoor/encoder.h"
#include "spoor/error.h"

void spoor_board_init(struct spoor_board *b)
{
	memset(b, 0, sizeof(*b));
	b->xlen = 64;
	b->ram_size = 128u << 20;
	b->trace_base = 0x0d000000u;
	spoor_params_init(&b->params);
	b->params.iaddress_width_p = 64;
	spoor_encap_config_init(&b->encap, SPOOR_ENCAP_SIEMENS);
}

/* Parses a number; returns 0 or SPOOR_E_BAD_VALUE. */
static int number(const char *v, uint64_t *out)
{
	char *end;

	errno = 0;
	*out = strtoull(v, &end, 0);
	return errno || end == v || *end ? SPOOR_E_BAD_VALUE : 0;
}

int spoor_board_parse_options(const char *list, uint32_t *bits, const char **bad)
{
	static const struct { const char *name; uint32_t bit; } names[] = {
		{ "implicit-return", SPOOR_OPT_IMPLICIT_RETURN },
		{ "implicit-exception", SPOOR_OPT_IMPLICIT_EXCEPTION },
		{ "full-address", SPOOR_OPT_FULL_ADDRESS },
		{ "jump-target-cache", SPOOR_OPT_JUMP_TARGET_CACHE },
		{ "branch-prediction", SPOOR_OPT_BRANCH_PREDICTION },
		{ "sijump", SPOOR_OPT_SIJUMP },
	};
	const char *v = list;

	*bits = 0;
	while (*v) {
		size_t len, i;

		v += strspn(v, " \t,");
		len = strcspn(v, " \t,");
		if (!len)
			break;
		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (strlen(names[i].name) == len && !strncmp(v, names[i].name, len))
				break;
		if (i == sizeof(names) / sizeof(names[0])) {
			if (bad)
				*bad = v;
			return SPOOR_E_BAD_VALUE;
		}
		*bits |= names[i].bit;
		v += len;
	}
	return 0;
}

/* A [board] key; returns 0 or an error. */
static int board_key(struct spoor_board *b, const char *name, const char *v)
{
	uint64_t n;

	if (!strcmp(name, "isa")) {
		if (!strncmp(v, "rv32", 4))
			b->xlen = 32;
		else if (!strncmp(v, "rv64", 4))
			b->xlen = 64;
		else
			return SPOOR_E_BAD_VALUE;
		return 0;
	}
	if (strcmp(name, "ram_size") && strcmp(name, "trace_base"))
		return SPOOR_E_UNKNOWN_KEY;
	if (number(v, &n))
		return SPOOR_E_BAD_VALUE;
	if (!strcmp(name, "ram_size")) {
		if (!n || (n & 0xfff) || n > (UINT64_C(1) << 32))
			return SPOOR_E_RANGE;
		b->ram_size = n;
	} else {
		if (n & 0xfff)
			return SPOOR_E_RANGE;
		b->trace_base = n;
	}
	return 0;
}

/* A [trace] key; returns 0 or an error. */
static int trace_key(struct spoor_board *b, const char *name, const char *v)
{
	enum spoor_encap_kind kind;
	uint64_t n;

	if (!strcmp(name, "encap")) {
		if (spoor_encap_kind_parse(v, &kind))
			return SPOOR_E_BAD_VALUE;
		spoor_encap_config_init(&b->encap, kind);
		return 0;
	}
	if (!strcmp(name, "features"))
		return spoor_board_parse_options(v, &b->features, NULL);
	if (strcmp(name, "src_bits") && strcmp(name, "ts_bytes") && strcmp(name, "type_bits") &&
	    strcmp(name, "src_id"))
		return SPOOR_E_UNKNOWN_KEY;
	if (number(v, &n))
		return SPOOR_E_BAD_VALUE;
	if (!strcmp(name, "src_bits") && n <= 12)
		b->encap.src_bits = (unsigned)n;
	else if (!strcmp(name, "ts_bytes") && n <= 8)
		b->encap.ts_bytes = (unsigned)n;
	else if (!strcmp(name, "type_bits") && n <= 8)
		b->encap.type_bits = (unsigned)n;
	else if (!strcmp(name, "src_id") && n < 4096)
		b->src_id = (uint32_t)n;
	else
		return SPOOR_E_RANGE;
	return 0;
}

/* A board file key, by section; returns 0 or an error. */
static int board_file_key(void *user, const char *section, const char *name, const char *value)
{
	struct spoor_board *b = user;

	if (!strcmp(section, "board"))
		return board_key(b, name, value);
	if (!strcmp(section, "trace"))
		return trace_key(b, name, value);
	return spoor_params_set(&b->params, name, value);
}

int spoor_board_load(struct spoor_board *b, const char *path, struct spoor_diag *diag)
{
	const char *why;
	int ret;

	if (!b || !path || !diag)
		return SPOOR_E_INVAL;
	ret = spoor_ini_load(path, board_file_key, b, diag);
	if (ret)
		return ret;
	ret = spoor_params_check(&b->params, &why);
	if (!ret && spoor_encap_config_check(&b->encap)) {
		why = "the [trace] encapsulation settings do not fit the encapsulation";
		ret = SPOOR_E_BAD_CONFIG;
	}
	if (!ret && b->params.iaddress_width_p != b->xlen) {
		why = "iaddress_width_p differs from the ISA's XLEN";
		ret = SPOOR_E_BAD_CONFIG;
	}
	if (ret)
		snprintf(diag->msg, sizeof(diag->msg), "%s: %s", path, why);
	return ret;
}
