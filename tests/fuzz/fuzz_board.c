// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: board files through spoor_board_load().  Beyond the
 * sanitizers: a board that loads is consistent (parameters, encapsulation,
 * XLEN) and every message is printable and names the file.
 */
#include "conf_fuzz.h"	/* first: it defines _GNU_SOURCE */

#include "spoor/board.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct spoor_board b;
	struct spoor_diag d;
	char path[64];
	int fd = fuzz_file(data, size, path, sizeof(path));
	int ret;

	spoor_board_init(&b);
	ret = spoor_board_load(&b, path, &d);
	if (!ret) {
		REQUIRE(!spoor_params_check(&b.params, NULL));
		REQUIRE(!spoor_encap_config_check(&b.encap));
		REQUIRE(b.params.iaddress_width_p == b.xlen);
		REQUIRE(b.xlen == (b.isa[3] == '2' ? 32u : 64u));
	} else {
		fuzz_check_refusal(ret, d.msg, path);
	}
	close(fd);
	return 0;
}
