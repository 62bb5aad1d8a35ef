/* SPDX-License-Identifier: MIT */
/*
 * Out of memory on demand for unit tests: the allocation after the next
 * alloc_fail ones fails (the library is linked in statically, so these are
 * its malloc and friends).  Not with AddressSanitizer, which has its own:
 * there FAIL_ALLOC is 0 and tests of allocation failures are skipped.
 * Include once, in the test's one .c file.
 */
#ifndef SPOOR_TEST_FAIL_ALLOC_H
#define SPOOR_TEST_FAIL_ALLOC_H

#include <stdbool.h>
#include <stddef.h>

#if defined(__SANITIZE_ADDRESS__)
#define FAIL_ALLOC 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FAIL_ALLOC 0
#endif
#endif
#ifndef FAIL_ALLOC
#define FAIL_ALLOC 1
#endif

static long alloc_fail = -1;	/* allocations before the one that fails; -1: none fails */

#if FAIL_ALLOC
void *__libc_malloc(size_t n);
void *__libc_calloc(size_t n, size_t size);
void *__libc_realloc(void *p, size_t n);

/* Returns whether this allocation is the one to fail. */
static bool alloc_fails(void)
{
	return alloc_fail >= 0 && alloc_fail-- == 0;
}

/* malloc, failing on demand. */
void *malloc(size_t n)
{
	return alloc_fails() ? NULL : __libc_malloc(n);
}

/* calloc, failing on demand. */
void *calloc(size_t n, size_t size)
{
	return alloc_fails() ? NULL : __libc_calloc(n, size);
}

/* realloc, failing on demand. */
void *realloc(void *p, size_t n)
{
	return alloc_fails() ? NULL : __libc_realloc(p, n);
}
#endif

#endif
