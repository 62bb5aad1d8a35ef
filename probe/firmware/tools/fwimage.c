// SPDX-License-Identifier: MIT
/*
 * spoor-fwimage: wraps a firmware body into a probe firmware image (the
 * 24-byte header of probe/PROTOCOL.md: magic, target ID, version, length,
 * CRC-32 of the body, CRC-32 of the header) for spoor flash and dfu-util.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spoor/probe.h"

#define BODY_MAX (16u << 20)

static void usage(FILE *out)
{
	fputs("usage: spoor-fwimage --version X.Y.Z [--target sim|ID] -o IMAGE BODY\n"
	      "Wrap the firmware BODY (a file) into a spoor probe firmware image: header with\n"
	      "magic, target ID, version, length and CRC-32s (probe/PROTOCOL.md).\n\n"
	      "  --version X.Y.Z   the firmware's version\n"
	      "  --target T        sim (the sim probe, default) or a 32-bit target ID\n"
	      "  -o, --output F    the image file\n"
	      "  -h, --help        this help\n"
	      "\nExit status: 0 written; 2 error.\n", out);
}

/* Parses "X.Y.Z" (each 0..255); false if it is not one. */
static bool parse_version(const char *s, uint32_t *out)
{
	unsigned a, b, c;
	char end;

	if (sscanf(s, "%u.%u.%u%c", &a, &b, &c, &end) != 3 || a > 255 || b > 255 || c > 255)
		return false;
	*out = a << 16 | b << 8 | c;
	return true;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "version", required_argument, NULL, 'v' },
		{ "target", required_argument, NULL, 't' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct spoor_probe_image img = { .target = SPOOR_PROBE_TARGET_SIM };
	uint8_t hdr[SPOOR_PROBE_IMAGE_HEADER], *body = NULL;
	const char *out = NULL;
	bool have_version = false;
	FILE *f;
	size_t n;
	int c, status = 2;

	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'v':
			if (!parse_version(optarg, &img.version)) {
				fprintf(stderr, "spoor-fwimage: --version: '%s' is not X.Y.Z\n",
					optarg);
				return 2;
			}
			have_version = true;
			break;
		case 't':
			if (strcmp(optarg, "sim")) {
				char *end;

				errno = 0;
				img.target = (uint32_t)strtoul(optarg, &end, 0);
				if (errno || end == optarg || *end) {
					fprintf(stderr, "spoor-fwimage: --target: '%s' is not sim "
						"or a number\n", optarg);
					return 2;
				}
			}
			break;
		case 'o':
			out = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 1 || !out || !have_version) {
		usage(stderr);
		return 2;
	}
	f = fopen(argv[optind], "rb");
	body = malloc(BODY_MAX + 1);
	if (!f || !body) {
		fprintf(stderr, "spoor-fwimage: %s: %s\n", argv[optind],
			f ? "out of memory" : strerror(errno));
		goto out;
	}
	n = fread(body, 1, BODY_MAX + 1, f);
	if (ferror(f) || n > BODY_MAX) {
		fprintf(stderr, "spoor-fwimage: %s: %s\n", argv[optind],
			ferror(f) ? strerror(errno) : "larger than 16 MiB");
		goto out;
	}
	fclose(f);
	f = NULL;
	img.length = (uint32_t)n;
	img.crc32 = spoor_probe_crc32(0, body, n);
	spoor_probe_image_header(&img, hdr);
	f = fopen(out, "wb");
	if (!f || fwrite(hdr, 1, sizeof(hdr), f) != sizeof(hdr) || fwrite(body, 1, n, f) != n ||
	    fclose(f)) {
		fprintf(stderr, "spoor-fwimage: writing '%s': %s\n", out, strerror(errno));
		f = NULL;
		goto out;
	}
	f = NULL;
	status = 0;
out:
	if (f)
		fclose(f);
	free(body);
	return status;
}
