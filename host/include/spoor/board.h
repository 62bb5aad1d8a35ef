/* SPDX-License-Identifier: MIT */
/*
 * Board descriptors: what a board's trace hardware is, in one INI file
 * (boards/virt-rv64.ini, ...), for the virtual board and for hosts decoding its trace.
 *
 *   [board]    isa (rv32imac, rv64imac), ram_size, trace_base (Trace Control
 *              Interface registers), mtvec/stvec hints for implicit exception
 *   [encoder]  E-Trace parameters (any spoor_params key)
 *   [trace]    encap (raw, siemens, atb, etrace-encap), src_bits, ts_bytes,
 *              type_bits, src_id (trTeSrcID), features (comma list of the
 *              encoder options the hardware has: full-address,
 *              implicit-exception, sijump, implicit-return,
 *              branch-prediction, jump-target-cache)
 */
#ifndef SPOOR_BOARD_H
#define SPOOR_BOARD_H

#include <stdint.h>

#include "spoor/config_file.h"
#include "spoor/encap.h"
#include "spoor/params.h"

#ifdef __cplusplus
extern "C" {
#endif

struct spoor_board {
	char isa[32];		/* the ISA string, "rv64imac" */
	unsigned xlen;
	uint64_t ram_size;
	uint64_t trace_base;
	struct spoor_params params;
	struct spoor_encap_config encap;
	uint32_t src_id;
	uint32_t features;	/* enum spoor_option bits the encoder supports */
};

/*
 * Parses a list of option names ("full-address, sijump", separated by
 * commas, spaces or tabs) into enum spoor_option bits, for the encoder and
 * the decoder alike.  Returns 0, or
 * SPOOR_E_BAD_VALUE with *@bad (when @bad is not NULL) at the unknown name.
 */
int spoor_board_parse_options(const char *list, uint32_t *bits, const char **bad);

/* Fills @b with the defaults: RV64, 128 MiB, trace at 0x0d000000, Siemens. */
void spoor_board_init(struct spoor_board *b);

/*
 * Reads board file @path into @b (on top of what it holds).  Returns 0, or
 * an error of spoor_ini_load() (SPOOR_E_IO, SPOOR_E_NOT_REGULAR,
 * SPOOR_E_SYNTAX, SPOOR_E_DUPLICATE ...), SPOOR_E_UNKNOWN_KEY,
 * SPOOR_E_BAD_VALUE, SPOOR_E_RANGE, SPOOR_E_BAD_CONFIG with @diag naming
 * file, line, key and the values the key accepts.
 */
int spoor_board_load(struct spoor_board *b, const char *path, struct spoor_diag *diag);

/* 1 if the board's ISA string has single-letter extension @ext ('c', 'm' ...), else 0. */
int spoor_board_isa_has(const struct spoor_board *b, char ext);

#ifdef __cplusplus
}
#endif

#endif
