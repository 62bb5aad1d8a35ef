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
 * SPOOR_E_IO, SPOOR_E_NOT_REGULAR, SPOOR_E_TOO_BIG, SPOOR_E_SYNTAX,
 * SPOOR_E_DUPLICATE, SPOOR_E_UNKNOWN_KEY, SPOOR_E_BAD_VALUE, SPOOR_E_RANGE,
 * SPOOR_E_BAD_CONFIG with @diag filled (see spoor_ini_load()).
 */
int spoor_params_load(struct spoor_params *p, const char *path, struct spoor_diag *diag);

/*
 * Reads INI file @path with libinih, calling @key(user, section, name,
 * value, hint, hint_size) for every key; @key returns 0 or a negative
 * spoor_error, and may write what the key accepts to @hint ("one of raw,
 * siemens, ..."), which stops the parse with @diag saying "FILE:LINE: key
 * 'K' = 'V': reason; hint".  The file must be a regular file of at most
 * 1 MiB (a directory, device or FIFO is refused without reading it); the
 * parse stops at the first error: a line that is not text, is too long or is
 * neither a comment, a [section] nor KEY=VALUE (SPOOR_E_SYNTAX), or a key
 * given twice in a section (SPOOR_E_DUPLICATE).  Bytes of the file are
 * quoted escaped.  Returns 0, the key's error, SPOOR_E_IO,
 * SPOOR_E_NOT_REGULAR, SPOOR_E_TOO_BIG, SPOOR_E_SYNTAX or SPOOR_E_DUPLICATE.
 */
int spoor_ini_load(const char *path, int (*key)(void *user, const char *section,
						  const char *name, const char *value,
						  char *hint, size_t hint_size),
		   void *user, struct spoor_diag *diag);

/*
 * Writes the @len bytes at @in to @out (@size bytes, NUL-terminated) with
 * every byte that is not printable ASCII as \xNN and '\\' doubled, at most
 * 64 input bytes ("..." follows when there were more).  Returns the length
 * written.  For quoting untrusted input in messages.
 */
size_t spoor_escape(const char *in, size_t len, char *out, size_t size);

#ifdef __cplusplus
}
#endif

#endif
