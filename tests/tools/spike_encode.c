// SPDX-License-Identifier: MIT
/*
 * spike_encode: runs spoor's encoder model over a spike instruction trace
 * and writes the packets as a raw te_inst stream (the reference flow's
 * *.te_inst_raw), for the conformance and round-trip tests.
 *
 * usage: spike_encode --params X.scf --ucf Y.ucf [OPTIONS] SPIKE[.gz] OUT
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <ini.h>

#include "spoor/config_file.h"
#include "spoor/encap.h"
#include "spoor/encoder.h"
#include "spoor/error.h"
#include "spoor/params.h"
#include "spoor/spike_trace.h"

struct args {
	const char *params_path, *ucf_path, *in_path, *out_path;
	struct spoor_params params;
	uint32_t options;
	bool options_set;
	unsigned resync;	/* packets; 0: from the ucf */
	long ucf_resync;	/* the ucf's resync-max, -1 when absent */
	bool spec, spec_rules, stats;
	unsigned xlen;
};

static void usage(FILE *out)
{
	fputs("usage: spike_encode --params X.scf --ucf Y.ucf [OPTIONS] SPIKE[.gz] "
	      "OUT.te_inst_raw\n"
	      "Encode a spike instruction trace with spoor's encoder model.\n\n"
	      "  --params FILE     encoder parameters (*.scf)\n"
	      "  --param KEY=VALUE set one parameter (after --params)\n"
	      "  --ucf FILE        run-time options ([codec] of the reference flow's *.ucf)\n"
	      "  --options LIST    instead of the ucf's: implicit-return, implicit-exception,\n"
	      "                    full-address, jump-target-cache, branch-prediction, sijump\n"
	      "                    (comma list) or none\n"
	      "  --resync N        a sync after N packets (default: the ucf's resync-max v\n"
	      "                    means 2^(v+4) packets, as in the reference encoder)\n"
	      "  --spec            follow the spec where the reference encoder does not\n"
	      "                    (default: reproduce the reference flow byte for byte)\n"
	      "  --spec-rules      calls and returns by the x1/x5 table (default: x1 only)\n"
	      "  --xlen N          32 or 64 (default: from iaddress_width_p)\n"
	      "  --stats           print the encoder's counters on stderr\n", out);
}

/* Returns true for an INI boolean "true" (else false). */
static bool ini_true(const char *v)
{
	return !strcasecmp(v, "true") || !strcmp(v, "1") || !strcasecmp(v, "yes");
}

/* Returns 1 (continue) after taking one [codec] key of the ucf. */
static int ucf_handler(void *user, const char *section, const char *name, const char *value)
{
	static const struct {
		const char *key;
		uint32_t option;
	} keys[] = {
		{ "implicit-return", SPOOR_OPT_IMPLICIT_RETURN },
		{ "implicit-except", SPOOR_OPT_IMPLICIT_EXCEPTION },
		{ "full-address", SPOOR_OPT_FULL_ADDRESS },
		{ "jump-target-cache", SPOOR_OPT_JUMP_TARGET_CACHE },
		{ "branch-prediction", SPOOR_OPT_BRANCH_PREDICTION },
		{ "si-jump", SPOOR_OPT_SIJUMP },
	};
	struct args *a = user;

	if (strcmp(section, "codec"))
		return 1;
	if (!strcmp(name, "resync-max")) {
		a->ucf_resync = strtol(value, NULL, 0);
		return 1;
	}
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (strcmp(name, keys[i].key))
			continue;
		if (a->options_set)
			return 1;
		if (ini_true(value))
			a->options |= keys[i].option;
		else
			a->options &= ~keys[i].option;
	}
	return 1;
}

/* Returns 0 after parsing the comma list @list into @opts, or -1. */
static int parse_options(const char *list, uint32_t *opts)
{
	static const char *const names[] = {
		"implicit-return", "implicit-exception", "full-address",
		"jump-target-cache", "branch-prediction", "sijump",
	};
	char buf[256], *tok, *save;
	size_t i;

	*opts = 0;
	if (!strcmp(list, "none"))
		return 0;
	if (strlen(list) >= sizeof(buf))
		return -1;
	strcpy(buf, list);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (!strcmp(tok, names[i]))
				break;
		if (i == sizeof(names) / sizeof(names[0]))
			return -1;
		*opts |= UINT32_C(1) << i;
	}
	return 0;
}

/* Returns 0 after setting "KEY=VALUE" @arg in the parameters, or -1. */
static int set_param(struct args *a, const char *arg)
{
	char key[128];
	const char *eq = strchr(arg, '=');
	int ret;

	if (!eq || (size_t)(eq - arg) >= sizeof(key)) {
		fprintf(stderr, "spike_encode: --param: expected KEY=VALUE, got '%s'\n", arg);
		return -1;
	}
	memcpy(key, arg, (size_t)(eq - arg));
	key[eq - arg] = 0;
	ret = spoor_params_set(&a->params, key, eq + 1);
	if (ret) {
		fprintf(stderr, "spike_encode: --param %s: %s\n", arg, spoor_errstr(ret));
		return -1;
	}
	return 0;
}

/* Returns 0 after parsing the command line into @a, or -1 after a message. */
static int parse_args(int argc, char **argv, struct args *a)
{
	enum { O_PARAMS = 256, O_PARAM, O_UCF, O_OPTIONS, O_RESYNC, O_SPEC, O_SPEC_RULES,
	       O_XLEN, O_STATS };
	static const struct option longopts[] = {
		{ "params", required_argument, NULL, O_PARAMS },
		{ "param", required_argument, NULL, O_PARAM },
		{ "ucf", required_argument, NULL, O_UCF },
		{ "options", required_argument, NULL, O_OPTIONS },
		{ "resync", required_argument, NULL, O_RESYNC },
		{ "spec", no_argument, NULL, O_SPEC },
		{ "spec-rules", no_argument, NULL, O_SPEC_RULES },
		{ "xlen", required_argument, NULL, O_XLEN },
		{ "stats", no_argument, NULL, O_STATS },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct spoor_diag diag;
	int c;

	spoor_params_init(&a->params);
	a->ucf_resync = -1;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case O_PARAMS:
			a->params_path = optarg;
			if (spoor_params_load(&a->params, optarg, &diag)) {
				fprintf(stderr, "spike_encode: %s\n", diag.msg);
				return -1;
			}
			break;
		case O_PARAM:
			if (set_param(a, optarg))
				return -1;
			break;
		case O_UCF:
			a->ucf_path = optarg;
			break;
		case O_OPTIONS:
			if (parse_options(optarg, &a->options)) {
				fprintf(stderr, "spike_encode: --options: bad list '%s'\n", optarg);
				return -1;
			}
			a->options_set = true;
			break;
		case O_RESYNC:
			a->resync = (unsigned)strtoul(optarg, NULL, 0);
			break;
		case O_SPEC:
			a->spec = true;
			break;
		case O_SPEC_RULES:
			a->spec_rules = true;
			break;
		case O_XLEN:
			a->xlen = (unsigned)strtoul(optarg, NULL, 0);
			break;
		case O_STATS:
			a->stats = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -1;
		}
	}
	if (argc - optind != 2) {
		usage(stderr);
		return -1;
	}
	a->in_path = argv[optind];
	a->out_path = argv[optind + 1];
	if (a->ucf_path && ini_parse(a->ucf_path, ucf_handler, a)) {
		fprintf(stderr, "spike_encode: cannot read %s\n", a->ucf_path);
		return -1;
	}
	if (!a->xlen)
		a->xlen = a->params.iaddress_width_p > 32 ? 64 : 32;
	if (!a->resync && a->ucf_resync >= 0 && a->ucf_resync < 27)
		a->resync = 1u << (a->ucf_resync + 4);
	return 0;
}

/* Returns 0 after writing @pkt (layout options @layout) as one raw frame to @out, or an error. */
static int write_packet(const struct spoor_params *p, uint32_t layout,
			const struct spoor_te_inst *pkt, FILE *out)
{
	static const struct spoor_encap_config raw = { .kind = SPOOR_ENCAP_RAW, .type_te_inst = 2,
						       .type_te_data = 3 };
	uint8_t payload[SPOOR_TE_MAX_PAYLOAD], frame[SPOOR_FRAME_MAX];
	struct spoor_frame frm;
	int n;

	n = spoor_te_inst_encode_layout(p, layout, pkt, payload, sizeof(payload));
	if (n < 0)
		return n;
	memset(&frm, 0, sizeof(frm));
	frm.msg = SPOOR_MSG_TE_INST;
	frm.payload = payload;
	frm.payload_len = (uint32_t)n;
	n = spoor_encap_encode(&raw, &frm, frame, sizeof(frame));
	if (n < 0)
		return n;
	return fwrite(frame, 1, (size_t)n, out) == (size_t)n ? 0 : SPOOR_E_IO;
}

/* Returns 0 after writing every packet the encoder has pending, or an error. */
static int drain(struct spoor_encoder *enc, const struct spoor_params *p, FILE *out)
{
	struct spoor_te_inst pkt;
	int ret;

	while ((ret = spoor_encoder_next(enc, &pkt)) == 1) {
		ret = write_packet(p, spoor_encoder_layout(enc), &pkt, out);
		if (ret)
			return ret;
	}
	return ret;
}

/* Returns 0 after encoding the whole trace of @r to @out, or an error. */
static int encode(struct args *a, struct spoor_spike_reader *r, struct spoor_encoder *enc,
		  FILE *out)
{
	struct spoor_ingress rec;
	int ret;

	while ((ret = spoor_spike_next(r, &rec)) == 1) {
		ret = spoor_encoder_push(enc, &rec);
		if (!ret)
			ret = drain(enc, &a->params, out);
		if (ret)
			return ret;
	}
	if (ret)
		return ret;
	ret = spoor_encoder_finish(enc);
	return ret ? ret : drain(enc, &a->params, out);
}

/* Returns nothing; prints the encoder's counters. */
static void print_stats(const struct spoor_encoder *enc)
{
	struct spoor_encoder_stats st;

	spoor_encoder_stats(enc, &st);
	fprintf(stderr, "records %" PRIu64 " packets %" PRIu64 " f0 %" PRIu64 " f1 %" PRIu64
		" f2 %" PRIu64 " f3 %" PRIu64 " (start %" PRIu64 " trap %" PRIu64 ") jtc %" PRIu64
		" counts %" PRIu64 " ambiguous %" PRIu64 "\n", st.records, st.packets,
		st.format[0], st.format[1], st.format[2], st.format[3], st.sync[0], st.sync[1],
		st.jtc_hits, st.counts, st.ambiguous);
}

int main(int argc, char **argv)
{
	struct args a = { 0 };
	struct spoor_encoder_config ecfg = { 0 };
	struct spoor_spike_config scfg = { 0 };
	struct spoor_spike_reader *r = NULL;
	struct spoor_encoder *enc = NULL;
	const char *why;
	FILE *out = NULL;
	int ret = 1, err;

	if (parse_args(argc, argv, &a))
		return 2;
	ecfg.params = &a.params;
	ecfg.options = a.options;
	ecfg.resync_max = a.resync;
	ecfg.reference_quirks = !a.spec;
	if (spoor_encoder_check_config(&ecfg, &why)) {
		fprintf(stderr, "spike_encode: %s\n", why ? why : "bad configuration");
		return 2;
	}
	scfg.xlen = a.xlen;
	scfg.itype_width = a.params.itype_width_p >= 4 ? 4 : 3;
	scfg.sijump = a.params.sijump_p;
	scfg.flags = (a.spec ? 0 : SPOOR_SPIKE_REFERENCE) | (a.spec_rules ? SPOOR_SPIKE_X1X5 : 0);
	r = spoor_spike_open(a.in_path, &scfg, &err);
	enc = spoor_encoder_new(&ecfg);
	out = fopen(a.out_path, "wb");
	if (!r || !enc || !out) {
		fprintf(stderr, "spike_encode: cannot open %s or %s: %s\n", a.in_path, a.out_path,
			!r ? spoor_errstr(err) : strerror(errno));
		goto out;
	}
	err = encode(&a, r, enc, out);
	if (err) {
		fprintf(stderr, "spike_encode: %s line %" PRIu64 ": %s\n", a.in_path,
			spoor_spike_line(r), spoor_errstr(err));
		goto out;
	}
	if (a.stats)
		print_stats(enc);
	ret = 0;
out:
	if (out && fclose(out) && !ret) {
		fprintf(stderr, "spike_encode: writing %s: %s\n", a.out_path, strerror(errno));
		ret = 1;
	}
	spoor_encoder_free(enc);
	spoor_spike_close(r);
	return ret;
}
