/* SPDX-License-Identifier: MIT */
/*
 * Reading encoder parameters from files: the reference flow's static
 * configuration (*.scf: key=value, [section] headings, # comments) and our
 * INI board files.  Parsing is libinih's; keys and ranges are
 * spoor_params_set()'s.
 */
#ifndef SPOOR_CONFIG_FILE_H
#define SPOOR_CONFIG_FILE_H

#include <stddef.h>

#include "spoor/params.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where and why loading failed: "FILE:LINE: key 'K': reason". */
struct spoor_diag {
	char msg[512];
};

/*
 * Sets every key=value of file @path in @p (sections are only headings,
 * except that the [board] and [trace] sections of board files are skipped:
 * see spoor/board.h).
 * Checks the result with spoor_params_check().  Returns 0, or
 * SPOOR_E_IO (errno set), SPOOR_E_SYNTAX, SPOOR_E_UNKNOWN_KEY,
 * SPOOR_E_BAD_VALUE, SPOOR_E_RANGE, SPOOR_E_BAD_CONFIG with @diag filled.
 */
int spoor_params_load(struct spoor_params *p, const char *path, struct spoor_diag *diag);

/*
 * Reads INI file @path with libinih, calling @key(user, section, name,
 * value) for every key; @key returns 0 or a negative spoor_error, which
 * stops the parse with @diag saying "FILE:LINE: key 'K' = 'V': reason".
 * Returns 0, that error, SPOOR_E_IO or SPOOR_E_SYNTAX.
 */
int spoor_ini_load(const char *path, int (*key)(void *user, const char *section,
						  const char *name, const char *value),
		   void *user, struct spoor_diag *diag);

#ifdef __cplusplus
}
#endif

#endif
