// SPDX-License-Identifier: MIT
/* Tests for encoder parameters: defaults, set/get by name, ranges, checks. */
#include <string.h>

#include "check.h"
#include "spoor/error.h"
#include "spoor/params.h"

static void test_defaults(void)
{
	struct spoor_params p;

	spoor_params_init(&p);
	/* The spec's required-attribute defaults. */
	CHECK_EQ(p.iaddress_width_p, 32);
	CHECK_EQ(p.iaddress_lsb_p, 1);
	CHECK_EQ(p.ecause_width_p, 4);
	CHECK_EQ(p.privilege_width_p, 2);
	CHECK_EQ(p.nocontext_p, 1);
	CHECK_EQ(p.notime_p, 1);
	CHECK_EQ(p.return_stack_size_p, 0);
	CHECK_EQ(spoor_params_check(&p, NULL), 0);
	/* The reference flow's support packet layout. */
	CHECK_EQ(p.encoder_mode_width_p, 1);
	CHECK_EQ(p.ioptions_width_p, 5);
	CHECK_EQ(p.ioption_bit[SPOOR_IOPT_FULL_ADDRESS], 2);
	CHECK_EQ(p.ioption_bit[SPOOR_IOPT_SIJUMP], -1);
}

static void test_set_get(void)
{
	struct spoor_params p;
	long v = 0;

	spoor_params_init(&p);
	CHECK_EQ(spoor_params_set(&p, "iaddress_width_p", "64"), 0);
	CHECK_EQ(p.iaddress_width_p, 64);
	CHECK_EQ(spoor_params_set(&p, "context_width_p", " 0x20 "), 0);
	CHECK_EQ(p.context_width_p, 32);
	CHECK_EQ(spoor_params_get(&p, "context_width_p", &v), 0);
	CHECK_EQ(v, 32);
	CHECK_EQ(spoor_params_set(&p, "ioption_sijump_p", "5"), 0);
	CHECK_EQ(p.ioption_bit[SPOOR_IOPT_SIJUMP], 5);
	CHECK_EQ(spoor_params_set(&p, "ioption_sijump_p", "none"), 0);
	CHECK_EQ(p.ioption_bit[SPOOR_IOPT_SIJUMP], -1);
	/* Errors name what is wrong and leave the value alone. */
	CHECK_EQ(spoor_params_set(&p, "no_such_p", "1"), SPOOR_E_UNKNOWN_KEY);
	CHECK_EQ(spoor_params_set(&p, "iaddress_width_p", "65"), SPOOR_E_RANGE);
	CHECK_EQ(spoor_params_set(&p, "iaddress_width_p", "0"), SPOOR_E_RANGE);
	CHECK_EQ(spoor_params_set(&p, "iaddress_width_p", "-3"), SPOOR_E_RANGE);
	CHECK_EQ(spoor_params_set(&p, "iaddress_width_p", "12abc"), SPOOR_E_BAD_VALUE);
	CHECK_EQ(spoor_params_set(&p, "iaddress_width_p", ""), SPOOR_E_BAD_VALUE);
	CHECK_EQ(spoor_params_set(&p, "notime_p", "2"), SPOOR_E_RANGE);
	CHECK_EQ(spoor_params_set(&p, "notime_p", "none"), SPOOR_E_BAD_VALUE);
	CHECK_EQ(p.iaddress_width_p, 64);
	CHECK_EQ(spoor_params_set(NULL, "notime_p", "1"), SPOOR_E_INVAL);
	CHECK_EQ(spoor_params_set(&p, NULL, "1"), SPOOR_E_INVAL);
	CHECK_EQ(spoor_params_get(&p, "bogus", &v), SPOOR_E_UNKNOWN_KEY);
	/* Every listed name can be read back and set to its current value. */
	for (size_t i = 0; i < spoor_params_count(); i++) {
		char buf[32];

		CHECK_EQ(spoor_params_get(&p, spoor_params_name(i), &v), 0);
		if (v < 0)
			strcpy(buf, "none");
		else
			snprintf(buf, sizeof(buf), "%ld", v);
		CHECK_EQ(spoor_params_set(&p, spoor_params_name(i), buf), 0);
	}
	CHECK(spoor_params_name(spoor_params_count()) == NULL);
}

static void test_check(void)
{
	struct spoor_params p;
	const char *why = NULL;

	spoor_params_init(&p);
	CHECK_EQ(p.iaddress_lsb_p, 1);
	CHECK_EQ(spoor_params_irdepth_width(&p), 0);
	p.return_stack_size_p = 3;
	p.call_counter_size_p = 2;
	CHECK_EQ(spoor_params_irdepth_width(&p), 6);
	p.iaddress_width_p = 1;
	CHECK_EQ(spoor_params_check(&p, &why), SPOOR_E_BAD_CONFIG);
	CHECK(why && strstr(why, "iaddress_lsb_p"));
	spoor_params_init(&p);
	p.return_stack_size_p = 40;
	p.call_counter_size_p = 30;
	CHECK_EQ(spoor_params_check(&p, &why), SPOOR_E_BAD_CONFIG);
	spoor_params_init(&p);
	p.bpred_size_p = 2;
	p.cache_size_p = 3;
	CHECK_EQ(spoor_params_check(&p, &why), SPOOR_E_BAD_CONFIG);
	p.f0s_width_p = 1;
	CHECK_EQ(spoor_params_check(&p, &why), 0);
	p.ioptions_width_p = 3;
	CHECK_EQ(spoor_params_check(&p, &why), SPOOR_E_BAD_CONFIG);
}

int main(int argc, char **argv)
{
	check_args(argc, argv,
		   "Tests for encoder parameters: defaults, set/get by name, ranges, checks.");
	test_defaults();
	test_set_get();
	test_check();
	return check_done();
}
