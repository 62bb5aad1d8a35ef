// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: encoder parameter files (*.scf and INI) through
 * spoor_params_load().  Beyond the sanitizers: a file that loads gives
 * consistent parameters, and every message is printable (the file's bytes
 * quoted escaped) and names the file.
 */
#include "conf_fuzz.h"	/* first: it defines _GNU_SOURCE */

#include "spoor/config_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct spoor_params p;
	struct spoor_diag d;
	char path[64];
	int fd = fuzz_file(data, size, path, sizeof(path));
	int ret;

	spoor_params_init(&p);
	ret = spoor_params_load(&p, path, &d);
	if (!ret) {
		REQUIRE(!spoor_params_check(&p, NULL));
	} else {
		fuzz_check_refusal(ret, d.msg, path);
	}
	close(fd);
	return 0;
}
