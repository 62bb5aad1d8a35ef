// SPDX-License-Identifier: MIT
/*
 * A test client of the emulated FT2232H FIFO (spoor-probe-sim --ftdi), with
 * the real libftdi1: it runs as the COMMAND under the testbed, opens
 * 0403:6010 on interface B, sets the FIFO bit mode and reads until it has
 * FILE's size, which the bytes must equal exactly (libftdi strips the
 * modem status bytes).
 *
 *   ftdi_client FILE
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ftdi.h>

#define DEADLINE_MS 30000
#define CHUNK (64u << 10)

/* Milliseconds on the monotonic clock. */
static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Reads a whole file; returns its bytes (malloc'd) or NULL. */
static unsigned char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *b = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET))
		goto out;
	b = malloc(n ? (size_t)n : 1);
	if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
		free(b);
		b = NULL;
	}
	*len = (size_t)n;
out:
	fclose(f);
	return b;
}

/* Reads with nothing to come: 0 bytes (status packets only), several times; returns 0 or 1. */
static int idle_check(struct ftdi_context *ftdi, const char *channel)
{
	unsigned char b[4096];
	int i, r;

	for (i = 0; i < 3; i++) {
		r = ftdi_read_data(ftdi, b, sizeof(b));
		if (r != 0) {
			fprintf(stderr, "ftdi_client: channel %s idle read gave %d\n", channel, r);
			return 1;
		}
	}
	return 0;
}

/* Channel A (JTAG's) opens as a 2232H too and only ever answers idle; returns 0 or 1. */
static int idle_channel_a(void)
{
	struct ftdi_context *a = ftdi_new();
	int ret = 1;

	if (!a || ftdi_set_interface(a, INTERFACE_A) < 0 || ftdi_usb_open(a, 0x0403, 0x6010) < 0) {
		fprintf(stderr, "ftdi_client: channel A: %s\n",
			a ? ftdi_get_error_string(a) : "ftdi_new failed");
		goto out;
	}
	if (ftdi_set_latency_timer(a, 1) < 0 || ftdi_set_bitmode(a, 0x0b, BITMODE_MPSSE) < 0) {
		fprintf(stderr, "ftdi_client: channel A setup: %s\n", ftdi_get_error_string(a));
		goto out;
	}
	ret = idle_check(a, "A");
	ftdi_usb_close(a);
out:
	ftdi_free(a);
	return ret;
}

int main(int argc, char **argv)
{
	struct ftdi_context *ftdi = NULL;
	unsigned char *want, *got = NULL;
	size_t want_len = 0, n = 0;
	int ret = 1, r;
	long long t0, idle = 0;

	if (argc >= 2 && !strcmp(argv[1], "--help")) {
		printf("usage: ftdi_client FILE\n"
		       "A test client of spoor-probe-sim --ftdi (run under its testbed): the\n"
		       "bytes read from interface B must be FILE's.\n");
		return 0;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: ftdi_client FILE\n");
		return 2;
	}
	want = read_file(argv[1], &want_len);
	got = malloc(want_len + CHUNK);
	if (!want || !got) {
		fprintf(stderr, "ftdi_client: %s: cannot read\n", argv[1]);
		goto out;
	}
	ftdi = ftdi_new();
	if (!ftdi || ftdi_set_interface(ftdi, INTERFACE_B) < 0) {
		fprintf(stderr, "ftdi_client: ftdi_new/set_interface failed\n");
		goto out;
	}
	if (ftdi_usb_open(ftdi, 0x0403, 0x6010) < 0) {
		fprintf(stderr, "ftdi_client: ftdi_usb_open: %s\n", ftdi_get_error_string(ftdi));
		goto out;
	}
	if (ftdi->type != TYPE_2232H) {
		fprintf(stderr, "ftdi_client: chip type %d, not a 2232H\n", (int)ftdi->type);
		goto out;
	}
	if (ftdi_set_latency_timer(ftdi, 2) < 0 ||
	    ftdi_read_data_set_chunksize(ftdi, CHUNK) < 0 ||
	    ftdi_set_bitmode(ftdi, 0xff, BITMODE_RESET) < 0 ||
	    ftdi_tcioflush(ftdi) < 0) {
		fprintf(stderr, "ftdi_client: setup: %s\n", ftdi_get_error_string(ftdi));
		goto out;
	}
	t0 = now_ms();
	while (n < want_len && now_ms() - t0 < DEADLINE_MS) {
		r = ftdi_read_data(ftdi, got + n, CHUNK);
		if (r < 0) {
			fprintf(stderr, "ftdi_client: read: %s\n", ftdi_get_error_string(ftdi));
			goto out;
		}
		idle += r == 0;
		n += (size_t)r;
	}
	if (n != want_len || memcmp(got, want, want_len)) {
		size_t i = 0;

		while (i < n && i < want_len && got[i] == want[i])
			i++;
		fprintf(stderr, "ftdi_client: %zu bytes read of %zu, first difference at %zu\n",
			n, want_len, i);
		goto out;
	}
	printf("ftdi_client: %zu bytes in %lld ms (%lld idle reads)\n", n, now_ms() - t0, idle);
	/* Nothing more: the chip answers bare status packets; so does channel A. */
	if (idle_check(ftdi, "B"))
		goto out;
	ret = idle_channel_a();
out:
	if (ftdi) {
		ftdi_usb_close(ftdi);
		ftdi_free(ftdi);
	}
	free(want);
	free(got);
	return ret;
}
