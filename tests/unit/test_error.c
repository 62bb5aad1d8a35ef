// SPDX-License-Identifier: MIT
/* Tests for spoor_errstr(). */
#include <string.h>

#include "check.h"
#include "spoor/error.h"

int main(int argc, char **argv)
{
	check_args(argc, argv, "Tests for spoor_errstr().");
	CHECK(!strcmp(spoor_errstr(SPOOR_OK), "success"));
	/* Every code has its own text, and unknown codes have a fallback. */
	for (int a = SPOOR_E_LAST; a < 0; a++) {
		CHECK(strcmp(spoor_errstr(a), "unknown error") != 0);
		for (int b = a + 1; b < 0; b++)
			CHECK(strcmp(spoor_errstr(a), spoor_errstr(b)) != 0);
	}
	CHECK(!strcmp(spoor_errstr(-1000), "unknown error"));
	CHECK(!strcmp(spoor_errstr(42), "unknown error"));
	return check_done();
}
