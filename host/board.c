// SPDX-License-Identifier: MIT
/* Board descriptors (INI files, parsed with libinih). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spoor/board.h"
#include "spoor/encoder.h"
#include "spoor/error.h"

void spoor_board_init(struct spoor_board *b)
{
	memset(b, 0, sizeof(*b));
	strcpy(b->isa, "rv64imac");
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

/* Checks the ISA string @v ("rv64imac", "rv32gc_zicsr"); returns 0 or SPOOR_E_BAD_VALUE. */
static int parse_isa(struct spoor_board *b, const char *v)
{
	size_t len = strlen(v), i;

	if (len >= sizeof(b->isa) || len < 5 || (strncmp(v, "rv32", 4) && strncmp(v, "rv64", 4)) ||
	    (v[4] != 'i' && v[4] != 'e' && v[4] != 'g'))
		return SPOOR_E_BAD_VALUE;
	for (i = 5; i < len && v[i] != '_'; i++)
		if (!strchr("mafdqcbvhpkjtnsux", v[i]))
			return SPOOR_E_BAD_VALUE;
	for (; i < len; i++)	/* multi-letter extensions: _zicsr_zifencei */
		if (!(v[i] >= 'a' && v[i] <= 'z') && !(v[i] >= '0' && v[i] <= '9') && v[i] != '_')
			return SPOOR_E_BAD_VALUE;
	memcpy(b->isa, v, len + 1);
	b->xlen = v[3] == '2' ? 32 : 64;
	return 0;
}

int spoor_board_isa_has(const struct spoor_board *b, char ext)
{
	const char *p = b->isa + 4;

	if (ext != 'i' && *p == 'g' && strchr("mafd", ext))
		return 1;
	for (; *p && *p != '_'; p++)
		if (*p == ext)
			return 1;
	return 0;
}

/* A [board] key; returns 0 or an error with @hint saying what is valid. */
static int board_key(struct spoor_board *b, const char *name, const char *v, char *hint,
		     size_t size)
{
	uint64_t n;

	if (!strcmp(name, "isa")) {
		snprintf(hint, size, "an ISA string rv32... or rv64... (base i, e or g, then single-letter "
			 "extensions, then _z... ones), as rv64imac");
		return parse_isa(b, v);
	}
	if (strcmp(name, "ram_size") && strcmp(name, "trace_base")) {
		snprintf(hint, size, "[board] keys are isa, ram_size, trace_base");
		return SPOOR_E_UNKNOWN_KEY;
	}
	if (!strcmp(name, "ram_size"))
		snprintf(hint, size, "a multiple of 4096 from 4096 to 0x100000000");
	else
		snprintf(hint, size, "an address that is a multiple of 4096");
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

/* A [trace] number key, @max its largest value; returns 0 or an error with @hint. */
static int trace_number(const char *v, uint64_t max, uint64_t *out, char *hint, size_t size)
{
	snprintf(hint, size, "a number from 0 to %" PRIu64, max);
	if (number(v, out))
		return SPOOR_E_BAD_VALUE;
	return *out > max ? SPOOR_E_RANGE : 0;
}

/* A [trace] key; returns 0 or an error with @hint saying what is valid. */
static int trace_key(struct spoor_board *b, const char *name, const char *v, char *hint,
		     size_t size)
{
	enum spoor_encap_kind kind;
	uint64_t n;
	int ret;

	if (!strcmp(name, "encap")) {
		if (spoor_encap_kind_parse(v, &kind)) {
			snprintf(hint, size, "one of raw, siemens, atb, etrace-encap");
			return SPOOR_E_BAD_VALUE;
		}
		spoor_encap_config_init(&b->encap, kind);
		return 0;
	}
	if (!strcmp(name, "features")) {
		ret = spoor_board_parse_options(v, &b->features, NULL);
		if (ret)
			snprintf(hint, size, "a comma list of full-address, implicit-exception, "
				 "sijump, implicit-return, branch-prediction, jump-target-cache");
		return ret;
	}
	if (!strcmp(name, "src_bits")) {
		ret = trace_number(v, 12, &n, hint, size);
		b->encap.src_bits = ret ? b->encap.src_bits : (unsigned)n;
	} else if (!strcmp(name, "ts_bytes")) {
		ret = trace_number(v, 8, &n, hint, size);
		b->encap.ts_bytes = ret ? b->encap.ts_bytes : (unsigned)n;
	} else if (!strcmp(name, "type_bits")) {
		ret = trace_number(v, 8, &n, hint, size);
		b->encap.type_bits = ret ? b->encap.type_bits : (unsigned)n;
	} else if (!strcmp(name, "src_id")) {
		ret = trace_number(v, 4095, &n, hint, size);
		b->src_id = ret ? b->src_id : (uint32_t)n;
	} else {
		snprintf(hint, size, "[trace] keys are encap, src_bits, ts_bytes, type_bits, src_id, "
			 "features");
		ret = SPOOR_E_UNKNOWN_KEY;
	}
	return ret;
}

/* A board file key, by section; returns 0 or an error with @hint. */
static int board_file_key(void *user, const char *section, const char *name, const char *value,
			  char *hint, size_t size)
{
	struct spoor_board *b = user;
	int ret;

	if (!strcmp(section, "board"))
		return board_key(b, name, value, hint, size);
	if (!strcmp(section, "trace"))
		return trace_key(b, name, value, hint, size);
	ret = spoor_params_set(&b->params, name, value);
	if (ret)
		spoor_params_describe(name, hint, size);
	return ret;
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
