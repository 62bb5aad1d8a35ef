// SPDX-License-Identifier: MIT
/* spoor probes: the attached trace probes (spoor/source.h). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "spoor/error.h"
#include "spoor/source.h"

static void probes_usage(FILE *out)
{
	fputs("usage: spoor probes [-h]\n"
	      "List the trace probes attached (spoor probes over USB, FTDI FT2232H/FT232H\n"
	      "capture adapters): the SOURCE to give --probe, serial, firmware version and\n"
	      "capabilities. Probes served over TCP (tcp:HOST:PORT) are not listed.\n\n"
	      "  -h, --help           this help\n"
	      "\nExit status: 0 listed (maybe none); 2 error.\n", out);
}

/* The capabilities as words. */
static void print_caps(const struct spoor_probe_info *in)
{
	bool any = false;

	fputs("  widths", stdout);
	for (unsigned w = 1; w <= 16; w *= 2)
		if (in->port_widths & (1u << (w - 1)))
			printf("%s%u", any ? "," : " ", w), any = true;
	if (in->capabilities & SPOOR_PROBE_CAP_DDR)
		fputs(" ddr", stdout);
	if (in->capabilities & SPOOR_PROBE_CAP_FALLING_EDGE)
		fputs(" falling-edge", stdout);
	if (in->capabilities & SPOOR_PROBE_CAP_DFU)
		fputs(" dfu", stdout);
	if (in->capabilities & SPOOR_PROBE_CAP_TIMESTAMPS)
		fputs(" timestamps", stdout);
	if (in->buffer_size)
		printf("  buffer %u KiB", in->buffer_size >> 10);
}

int cmd_probes(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct spoor_source_desc *v = NULL;
	struct spoor_diag diag;
	size_t n = 0;
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (c == 'h') {
			probes_usage(stdout);
			return CLI_EXIT_CLEAN;
		}
		fprintf(stderr, "spoor probes: unknown option '%s' (try 'spoor probes --help')\n",
			argv[optind - 1]);
		return CLI_EXIT_ERROR;
	}
	if (optind != argc) {
		fprintf(stderr, "spoor probes: unexpected argument '%s'\n", argv[optind]);
		return CLI_EXIT_ERROR;
	}
	if (spoor_source_scan(&v, &n, &diag) < 0) {
		fprintf(stderr, "spoor probes: out of memory\n");
		return CLI_EXIT_ERROR;
	}
	if (diag.msg[0])
		fprintf(stderr, "spoor probes: %s\n", diag.msg);
	if (!n)
		fputs("no probe attached (a probe served over TCP: --probe tcp:HOST:PORT)\n",
		      stderr);
	for (size_t i = 0; i < n; i++) {
		const struct spoor_source_desc *d = &v[i];

		printf("%-24s %04x:%04x  %s", d->address, d->vid, d->pid,
		       d->product[0] ? d->product : "-");
		if (d->dfu_mode)
			fputs("  (DFU mode: takes firmware only)", stdout);
		if (d->have_info) {
			/* (A FIFO adapter has no firmware of ours.) */
			if (d->info.firmware_version)
				printf("  firmware %u.%u.%u", d->info.firmware_version >> 16,
				       (d->info.firmware_version >> 8) & 0xff,
				       d->info.firmware_version & 0xff);
			print_caps(&d->info);
		}
		putchar('\n');
	}
	free(v);
	return cli_output_check("probes", stdout, 0);
}
