/* SPDX-License-Identifier: MIT */
/* A deterministic pseudo-random generator for tests (xorshift64*). */
#ifndef SPOOR_TEST_RNG_H
#define SPOOR_TEST_RNG_H

#include <stddef.h>
#include <stdint.h>

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

/* Returns the next pseudo-random number. */
static inline uint64_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

/* Returns a pseudo-random number in 0..@n-1 (@n > 0). */
static inline size_t rnd_below(size_t n)
{
	return (size_t)(rnd() % n);
}

#endif
