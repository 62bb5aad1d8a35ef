// SPDX-License-Identifier: MIT
/* Tests for loading encoder parameters from *.scf and INI files. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "spoor/board.h"
#include "spoor/config_file.h"
#include "spoor/encoder.h"
#include "spoor/error.h"

static char tmpdir[] = "/tmp/spoor-test-XXXXXX";

/* Writes @text to a file in the temporary directory; returns its path. */
static const char *write_file(const char *name, const char *text)
{
	static char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	f = fopen(path, "w");
	if (!f)
		abort();
	fputs(text, f);
	fclose(f);
	return path;
}

static void test_reference_scf(void)
{
	struct spoor_params p;
	struct spoor_diag d;

	/* The conformance vectors' static configuration files. */
	spoor_params_init(&p);
	CHECK_EQ(spoor_params_load(&p, SPOOR_VECTORS "/itype3_basic/hardware_64.scf", &d), 0);
	CHECK_EQ(p.iaddress_width_p, 64);
	CHECK_EQ(p.iaddress_lsb_p, 1);
	CHECK_EQ(p.context_width_p, 32);
	CHECK_EQ(p.nocontext_p, 0);
	CHECK_EQ(p.ecause_width_p, 5);
	CHECK_EQ(p.itype_width_p, 3);
	spoor_params_init(&p);
	CHECK_EQ(spoor_params_load(&p, SPOOR_VECTORS "/itype4_debug/hardware_32.scf", &d), 0);
	CHECK_EQ(p.iaddress_width_p, 32);
	CHECK_EQ(p.iaddress_lsb_p, 0);
	CHECK_EQ(p.call_counter_size_p, 9);
	CHECK_EQ(spoor_params_irdepth_width(&p), 9);
}

static void test_ini(void)
{
	struct spoor_params p;
	struct spoor_diag d;
	const char *path;

	spoor_params_init(&p);
	path = write_file("ok.ini", "; board\n[encoder]\niaddress_width_p = 64 ; inline comment\n"
			  "\n# hash comment\n[support packet]\nioption_sijump_p=none\n"
			  "return_stack_size_p=0x3\n");
	CHECK_EQ(spoor_params_load(&p, path, &d), 0);
	CHECK_EQ(p.iaddress_width_p, 64);
	CHECK_EQ(p.return_stack_size_p, 3);
	CHECK_EQ(p.ioption_bit[SPOOR_IOPT_SIJUMP], -1);
	CHECK_EQ(d.msg[0], '\0');
}

static void test_errors(void)
{
	struct spoor_params p;
	struct spoor_diag d;
	char want[300];
	const char *path;

	spoor_params_init(&p);
	CHECK_EQ(spoor_params_load(&p, "/nonexistent/x.scf", &d), SPOOR_E_IO);
	CHECK(strstr(d.msg, "/nonexistent/x.scf: No such file"));

	path = write_file("unknown.scf", "[Required Attributes]\narch_p=0\n\nbranch_width_p=4\n");
	CHECK_EQ(spoor_params_load(&p, path, &d), SPOOR_E_UNKNOWN_KEY);
	snprintf(want, sizeof(want), "%s:4: key 'branch_width_p' = '4': unknown key; not an "
		 "encoder parameter (the E-Trace spec's", path);
	CHECK(!strncmp(d.msg, want, strlen(want)));
	path = write_file("typo.scf", "iaddress_widht_p=32\n");
	CHECK_EQ(spoor_params_load(&p, path, &d), SPOOR_E_UNKNOWN_KEY);
	CHECK(strstr(d.msg, "typo.scf:1: key 'iaddress_widht_p' = '32': unknown key; not an "
		      "encoder parameter; did you mean 'iaddress_width_p'?"));

	path = write_file("range.scf", "notime_p=1\nnocontext_p=7\n");
	CHECK_EQ(spoor_params_load(&p, path, &d), SPOOR_E_RANGE);
	CHECK(strstr(d.msg, "range.scf:2: key 'nocontext_p' = '7': value out of range; "
		      "a number from 0 to 1"));

	path = write_file("nan.scf", "iaddress_width_p=wide\n");
	CHECK_EQ(spoor_params_load(&p, path, &d), SPOOR_E_BAD_VALUE);
	CHECK(strstr(d.msg, "nan.scf:1:"));

	path = write_file("syntax.ini", "[encoder]\niaddress_width_p=32\n[broken\n");
	CHECK_EQ(spoor_params_load(&p, path, &d), SPOOR_E_SYNTAX);
	CHECK(strstr(d.msg, "syntax.ini:3: section heading without ']': '[broken'"));

	spoor_params_init(&p);
	path = write_file("combo.ini", "iaddress_width_p=2\niaddress_lsb_p=2\n");
	CHECK_EQ(spoor_params_load(&p, path, &d), SPOOR_E_BAD_CONFIG);
	CHECK(strstr(d.msg, "iaddress_lsb_p"));

	CHECK_EQ(spoor_params_load(NULL, path, &d), SPOOR_E_INVAL);
	CHECK_EQ(spoor_params_load(&p, NULL, &d), SPOOR_E_INVAL);
}

/*
 * What a hostile or clumsy file gets: refused at once when it is not a regular
 * file, the first error ends the parse, duplicates are errors, messages name
 * the line and quote the file's bytes escaped.
 */
static void test_hostile(void)
{
	struct spoor_params p;
	struct spoor_diag d;
	char path[300], line[400];
	const char *f;

	spoor_params_init(&p);
	CHECK_EQ(spoor_params_load(&p, tmpdir, &d), SPOOR_E_NOT_REGULAR);
	CHECK(strstr(d.msg, ": not a regular file (a directory)"));
	CHECK_EQ(spoor_params_load(&p, "/dev/zero", &d), SPOOR_E_NOT_REGULAR);
	CHECK(!strcmp(d.msg, "/dev/zero: not a regular file (a device)"));
	CHECK_EQ(spoor_params_load(&p, "/dev/urandom", &d), SPOOR_E_NOT_REGULAR);
	/* A FIFO without a writer: opening it must not wait. */
	snprintf(path, sizeof(path), "%s/fifo", tmpdir);
	CHECK_EQ(mkfifo(path, 0600), 0);
	CHECK_EQ(spoor_params_load(&p, path, &d), SPOOR_E_NOT_REGULAR);
	CHECK(strstr(d.msg, "fifo: not a regular file (a FIFO)"));
	/* Too large: refused after reading one byte more than allowed. */
	{
		FILE *big;

		snprintf(path, sizeof(path), "%s/big.scf", tmpdir);
		big = fopen(path, "w");
		for (int i = 0; big && i < (1 << 20) / 16 + 1; i++)
			fputs("# padding line.\n", big);
		if (big)
			fclose(big);
		CHECK_EQ(spoor_params_load(&p, path, &d), SPOOR_E_TOO_BIG);
		CHECK(strstr(d.msg, "larger than the 1024 KiB"));
	}
	/* A duplicated key, in a section and before any. */
	f = write_file("dup.ini", "[encoder]\nnotime_p = 1\nnocontext_p = 1\nnotime_p = 0\n");
	CHECK_EQ(spoor_params_load(&p, f, &d), SPOOR_E_DUPLICATE);
	CHECK(strstr(d.msg, "dup.ini:4: key 'notime_p' given twice in [encoder] (first on line 2)"));
	f = write_file("dup.scf", "notime_p=1\nnotime_p=1\n");
	CHECK_EQ(spoor_params_load(&p, f, &d), SPOOR_E_DUPLICATE);
	CHECK(strstr(d.msg, "dup.scf:2: key 'notime_p' given twice (first on line 1)"));
	/* The same key in two sections is two keys. */
	f = write_file("two.ini", "[a]\nnotime_p = 1\n[b]\nnotime_p = 1\n");
	CHECK_EQ(spoor_params_load(&p, f, &d), 0);
	/* A long line is an error on its own line number (not line 0). */
	memset(line, 'x', sizeof(line));
	memcpy(line, "notime_p=1\n# ", 13);
	line[300] = '\n';
	line[301] = '\0';
	f = write_file("long.scf", line);
	CHECK_EQ(spoor_params_load(&p, f, &d), SPOOR_E_SYNTAX);
	CHECK(strstr(d.msg, "long.scf:2: line of 289 characters; a line may have at most 197"));
	/* Bytes that are not text: an error, quoted escaped. */
	f = write_file("esc.scf", "notime_p=1\n\033[2Jnocontext_p=\\1\n");
	CHECK_EQ(spoor_params_load(&p, f, &d), SPOOR_E_SYNTAX);
	CHECK(strstr(d.msg, "esc.scf:2: byte 0x1b is not text: '\\x1b[2Jnocontext_p=\\\\1'"));
	CHECK(!strchr(d.msg, '\033'));
	f = write_file("hi.scf", "notime_p=\xff\xfe\n");
	CHECK_EQ(spoor_params_load(&p, f, &d), SPOOR_E_BAD_VALUE);
	CHECK(strstr(d.msg, "hi.scf:1: key 'notime_p' = '\\xff\\xfe': not a valid value; "
		      "a number from 0 to 1"));
	/* The parse stops at the first error: no key after it is applied. */
	spoor_params_init(&p);
	f = write_file("stop.scf", "notime_p=0\nthis line is not a key\niaddress_width_p=17\n");
	CHECK_EQ(spoor_params_load(&p, f, &d), SPOOR_E_SYNTAX);
	CHECK(strstr(d.msg, "stop.scf:2: expected KEY = VALUE, a [section] or a comment, got "
		      "'this line is not a key'"));
	CHECK_EQ(p.iaddress_width_p, 32);
	/* Indented keys are keys, not continuation lines; a byte order mark is skipped. */
	spoor_params_init(&p);
	f = write_file("indent.ini", "\xef\xbb\xbf[encoder]\n  notime_p = 0\n\tnocontext_p = 0\n");
	CHECK_EQ(spoor_params_load(&p, f, &d), 0);
	CHECK_EQ(p.notime_p, 0);
	CHECK_EQ(p.nocontext_p, 0);
}

/* Board descriptors: the bundled ones, and errors naming file, line and key. */
static void test_board(void)
{
	struct spoor_board b;
	struct spoor_diag d;
	const char *path;

	spoor_board_init(&b);
	CHECK_EQ(spoor_board_load(&b, SPOOR_SOURCE_DIR "/boards/virt-rv32.ini", &d), 0);
	CHECK_EQ(b.xlen, 32);
	CHECK_EQ(b.params.iaddress_width_p, 32);
	CHECK_EQ(b.params.return_stack_size_p, 3);
	CHECK_EQ(b.trace_base, 0x0d000000);
	CHECK_EQ(b.encap.kind, SPOOR_ENCAP_SIEMENS);
	CHECK_EQ(b.encap.src_bits, 6);
	CHECK_EQ(b.features, SPOOR_OPT_IMPLICIT_RETURN | SPOOR_OPT_SIJUMP |
		 SPOOR_OPT_BRANCH_PREDICTION | SPOOR_OPT_JUMP_TARGET_CACHE);
	/* The parameter loader reads the same file, skipping [board] and [trace]. */
	{
		struct spoor_params p;

		spoor_params_init(&p);
		CHECK_EQ(spoor_params_load(&p, SPOOR_SOURCE_DIR "/boards/virt-rv64.ini", &d), 0);
		CHECK_EQ(p.iaddress_width_p, 64);
		CHECK_EQ(p.bpred_size_p, 6);
	}
	spoor_board_init(&b);
	path = write_file("b1.ini", "[board]\nisa = rv64imac\ncolour = red\n");
	CHECK_EQ(spoor_board_load(&b, path, &d), SPOOR_E_UNKNOWN_KEY);
	CHECK(strstr(d.msg, "b1.ini:3: key 'colour' = 'red': unknown key"));
	path = write_file("b2.ini", "[trace]\nfeatures = sijump, teleport\n");
	CHECK_EQ(spoor_board_load(&b, path, &d), SPOOR_E_BAD_VALUE);
	CHECK(strstr(d.msg, "b2.ini:2: key 'features'"));
	path = write_file("b3.ini", "[board]\nisa = rv32imac\n");
	spoor_board_init(&b);
	CHECK_EQ(spoor_board_load(&b, path, &d), SPOOR_E_BAD_CONFIG);
	CHECK(strstr(d.msg, "iaddress_width_p differs"));
	path = write_file("b4.ini", "[board]\nram_size = 12345\n");
	CHECK_EQ(spoor_board_load(&b, path, &d), SPOOR_E_RANGE);
	path = write_file("b5.ini", "[trace]\nsrc_bits = 99\n");
	CHECK_EQ(spoor_board_load(&b, path, &d), SPOOR_E_RANGE);
	CHECK_EQ(spoor_board_load(NULL, path, &d), SPOOR_E_INVAL);
	/* Enumerated values: the message lists the valid ones. */
	spoor_board_init(&b);
	path = write_file("b6.ini", "[trace]\nencap = foo\n");
	CHECK_EQ(spoor_board_load(&b, path, &d), SPOOR_E_BAD_VALUE);
	CHECK(strstr(d.msg, "b6.ini:2: key 'encap' = 'foo': value is not a number; one of raw, "
		      "siemens, atb, etrace-encap") == NULL);
	CHECK(strstr(d.msg, "b6.ini:2: key 'encap' = 'foo': not a valid value; one of raw, "
		      "siemens, atb, etrace-encap"));
	path = write_file("b7.ini", "[board]\nisa = rv128gcv\n");
	CHECK_EQ(spoor_board_load(&b, path, &d), SPOOR_E_BAD_VALUE);
	CHECK(strstr(d.msg, "b7.ini:2: key 'isa' = 'rv128gcv': not a valid value; an ISA string "
		      "rv32... or rv64..."));
	path = write_file("b8.ini", "[trace]\nfeatures = bogus\n");
	CHECK_EQ(spoor_board_load(&b, path, &d), SPOOR_E_BAD_VALUE);
	CHECK(strstr(d.msg, "b8.ini:2: key 'features' = 'bogus': not a valid value; a comma list "
		      "of full-address, implicit-exception, sijump, implicit-return, "
		      "branch-prediction, jump-target-cache"));
	path = write_file("b9.ini", "[trace]\nsrc_bits = x\n");
	CHECK_EQ(spoor_board_load(&b, path, &d), SPOOR_E_BAD_VALUE);
	CHECK(strstr(d.msg, "b9.ini:2: key 'src_bits' = 'x': not a valid value; a number from 0 "
		      "to 12"));
	path = write_file("b10.ini", "[trace]\ncolour = red\n");
	CHECK_EQ(spoor_board_load(&b, path, &d), SPOOR_E_UNKNOWN_KEY);
	CHECK(strstr(d.msg, "unknown key; [trace] keys are encap, src_bits"));
	/* The finding: a second src_bits in [trace] was taken, last one winning. */
	path = write_file("b11.ini", "[board]\nisa = rv64imac\n[encoder]\niaddress_width_p = 64\n"
			  "[trace]\nencap = siemens\nsrc_bits = 6\nsrc_bits = 8\n");
	CHECK_EQ(spoor_board_load(&b, path, &d), SPOOR_E_DUPLICATE);
	CHECK(strstr(d.msg, "b11.ini:8: key 'src_bits' given twice in [trace] (first on line 7)"));
	/* ISA strings: single letters, then multi-letter extensions; C known. */
	spoor_board_init(&b);
	path = write_file("b12.ini", "[board]\nisa = rv32ima_zicsr_zifencei\n[encoder]\n"
			  "iaddress_width_p = 32\n");
	CHECK_EQ(spoor_board_load(&b, path, &d), 0);
	CHECK_EQ(b.xlen, 32);
	CHECK_EQ(spoor_board_isa_has(&b, 'c'), 0);
	CHECK_EQ(spoor_board_isa_has(&b, 'm'), 1);
	CHECK(!strcmp(b.isa, "rv32ima_zicsr_zifencei"));
}

int main(int argc, char **argv)
{
	char cmd[64];

	check_args(argc, argv, "Tests for loading encoder parameters from *.scf and INI files.");

	if (!mkdtemp(tmpdir))
		return 1;
	test_reference_scf();
	test_ini();
	test_errors();
	test_hostile();
	test_board();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", tmpdir);
	return check_done();
}
