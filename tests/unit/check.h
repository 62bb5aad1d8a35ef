/* SPDX-License-Identifier: MIT */
/*
 * Minimal test harness for spoor's unit tests: CHECK macros count passes and
 * failures; check_done() prints "N passed, N failed" and gives the exit code.
 */
#ifndef SPOOR_TEST_CHECK_H
#define SPOOR_TEST_CHECK_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned check_passed, check_failed;

/*
 * A unit test's command line: none.  --help (or -h) prints what the test
 * checks and exits 0; anything else is a usage error (exit 2).
 */
static inline void check_args(int argc, char **argv, const char *what)
{
	if (argc < 2)
		return;
	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("usage: %s\n%s\nRuns every check and prints \"N passed, N failed\"; exit "
		       "status 0 when none failed, else 1.\n", argv[0], what);
		exit(0);
	}
	fprintf(stderr, "%s: takes no arguments (try --help)\n", argv[0]);
	exit(2);
}

#define CHECK(cond) do { \
	if (cond) { \
		check_passed++; \
	} else { \
		check_failed++; \
		fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
	} \
} while (0)

#define CHECK_EQ(a, b) do { \
	uint64_t check_a_ = (uint64_t)(a), check_b_ = (uint64_t)(b); \
	if (check_a_ == check_b_) { \
		check_passed++; \
	} else { \
		check_failed++; \
		fprintf(stderr, "%s:%d: check failed: %s == %s (0x%" PRIx64 " != 0x%" PRIx64 ")\n", \
			__FILE__, __LINE__, #a, #b, check_a_, check_b_); \
	} \
} while (0)

/* Prints the summary; returns the process exit code. */
static inline int check_done(void)
{
	printf("%u passed, %u failed\n", check_passed, check_failed);
	return check_failed ? 1 : 0;
}

#endif
