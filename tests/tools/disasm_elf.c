// SPDX-License-Identifier: MIT
/*
 * Disassembles instructions of a RISC-V ELF file with spoor_disasm_at(), one
 * "ADDR:\tTEXT" line each (ADDR in lowercase hex, as objdump -d's), for a
 * comparison with objdump -d (tests/cli/test_disasm.sh).  The addresses are
 * read from stdin, one hex number a line; a line that is no instruction
 * reads "ADDR:\t<error text>" unless libopcodes gave text for its bits.
 * usage: disasm_elf ELF < ADDRESSES
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spoor/disasm.h"
#include "spoor/error.h"
#include "spoor/image.h"

int main(int argc, char **argv)
{
	static const char usage[] =
		"usage: disasm_elf ELF < ADDRESSES\n"
		"Prints \"ADDR:\\tTEXT\", spoor's disassembly (objdump -d's mnemonic and\n"
		"operands), for each hex address on stdin, read from the program ELF.\n"
		"Exit status: 0 done, 2 error (unreadable ELF, bad address line).\n";
	struct spoor_disasm *d = NULL;
	struct spoor_image *img;
	struct spoor_diag diag;
	char line[128], text[256], *end;
	int status = 2;

	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		fputs(usage, stdout);
		return 0;
	}
	if (argc != 2) {
		fputs(usage, stderr);
		return 2;
	}
	img = spoor_image_new();
	if (!img || spoor_image_add_elf(img, argv[1], 0, &diag)) {
		fprintf(stderr, "disasm_elf: %s\n", img ? diag.msg : "out of memory");
		goto cleanup;
	}
	d = spoor_disasm_new(spoor_image_xlen(img), img);
	if (!d) {
		fprintf(stderr, "disasm_elf: no disassembler\n");
		goto cleanup;
	}
	while (fgets(line, sizeof(line), stdin)) {
		uint64_t addr = strtoull(line, &end, 16);
		int n;

		if (end == line || (*end && *end != '\n')) {
			fprintf(stderr, "disasm_elf: not an address: %s", line);
			goto cleanup;
		}
		n = spoor_disasm_at(d, img, addr, text, sizeof(text));
		printf("%" PRIx64 ":\t%s\n", addr, n < 0 && !text[0] ? spoor_errstr(n) : text);
	}
	status = fflush(stdout) || ferror(stdout) ? 2 : 0;
cleanup:
	spoor_disasm_free(d);
	spoor_image_free(img);
	return status;
}
