// SPDX-License-Identifier: MIT
/* Runs a libFuzzer target over files, for builds without libFuzzer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int main(int argc, char **argv)
{
	static unsigned char buf[1 << 20];
	int runs = 0;

	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("usage: %s FILE...\nRuns the libFuzzer target over each FILE, as it is and "
		       "under a few configuration\nprefixes, for builds without libFuzzer; prints "
		       "the number of runs.\n", argv[0]);
		return 0;
	}
	for (int i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		size_t n;

		if (!f) {
			perror(argv[i]);
			return 1;
		}
		n = fread(buf, 1, sizeof(buf), f);
		fclose(f);
		/* Each file as it is, then with each of a few configuration prefixes. */
		LLVMFuzzerTestOneInput(buf, n);
		runs++;
		for (unsigned cfg = 0; cfg < 64 && n >= 4; cfg++) {
			unsigned char save[4] = { buf[0], buf[1], buf[2], buf[3] };

			buf[0] = (unsigned char)(cfg * 37);
			buf[1] = (unsigned char)(cfg * 11);
			buf[2] = (unsigned char)(cfg * 73);
			buf[3] = (unsigned char)cfg;
			LLVMFuzzerTestOneInput(buf, n);
			buf[0] = save[0], buf[1] = save[1], buf[2] = save[2], buf[3] = save[3];
			runs++;
		}
	}
	printf("%d runs, 0 crashes\n", runs);
	return 0;
}
