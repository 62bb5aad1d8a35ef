// SPDX-License-Identifier: MIT
/* Tests for loading encoder parameters from *.scf and INI files. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
	snprintf(want, sizeof(want), "%s:4: key 'branch_width_p' = '4': unknown key", path);
	CHECK(!strcmp(d.msg, want));

	path = write_file("range.scf", "notime_p=1\nnotime_p=7\n");
	CHECK_EQ(spoor_params_load(&p, path, &d), SPOOR_E_RANGE);
	CHECK(strstr(d.msg, "range.scf:2: key 'notime_p'"));

	path = write_file("nan.scf", "iaddress_width_p=wide\n");
	CHECK_EQ(spoor_params_load(&p, path, &d), SPOOR_E_BAD_VALUE);
	CHECK(strstr(d.msg, "nan.scf:1:"));

	path = write_file("syntax.ini", "[encoder]\niaddress_width_p=32\n[broken\n");
	CHECK_EQ(spoor_params_load(&p, path, &d), SPOOR_E_SYNTAX);
	CHECK(strstr(d.msg, "syntax.ini:3: syntax error"));

	spoor_params_init(&p);
	path = write_file("combo.ini", "iaddress_width_p=2\niaddress_lsb_p=2\n");
	CHECK_EQ(spoor_params_load(&p, path, &d), SPOOR_E_BAD_CONFIG);
	CHECK(strstr(d.msg, "iaddress_lsb_p"));

	CHECK_EQ(spoor_params_load(NULL, path, &d), SPOOR_E_INVAL);
	CHECK_EQ(spoor_params_load(&p, NULL, &d), SPOOR_E_INVAL);
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
}

int main(void)
{
	char cmd[64];

	if (!mkdtemp(tmpdir))
		return 1;
	test_reference_scf();
	test_ini();
	test_errors();
	test_board();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", tmpdir);
	return check_done();
}
