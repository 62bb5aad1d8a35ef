/* SPDX-License-Identifier: MIT */
/*
 * What the analysis writers share: JSON strings from names that may hold
 * anything (quotes, control characters, bytes that are not UTF-8) for the
 * call tree and the timeline (calls.c, timeline.c), and the check that an
 * output took everything (calls.c, profile.c, coverage.c).  Internal to
 * libspoor.
 */
#ifndef SPOOR_JSON_STR_H
#define SPOOR_JSON_STR_H

#include <stdio.h>

/* Internal to libspoor: not exported from libspoor.so (as in source_driver.h). */
#ifndef SPOOR_INTERNAL
#define SPOOR_INTERNAL __attribute__((visibility("hidden")))
#endif

/*
 * Returns @s as the inside of a JSON string (malloc'd, without the
 * quotes): quotes and backslashes escaped, control characters as \u00XX,
 * each byte that is not part of valid UTF-8 as \ufffd; or NULL (no memory).
 */
SPOOR_INTERNAL char *json_str_escape(const char *s);

/* Writes @s to @out as a JSON string, quoted and escaped as json_str_escape() does. */
SPOOR_INTERNAL void json_str_put(FILE *out, const char *s);

/*
 * Flushes @out; returns 0 when it took everything written to it, else
 * SPOOR_E_IO with errno set (EIO when the stream did not say why).
 */
SPOOR_INTERNAL int json_str_out_check(FILE *out);

#endif /* SPOOR_JSON_STR_H */
