// SPDX-License-Identifier: MIT
/* spoor flash: update a probe's firmware over USB DFU (spoor/dfu.h). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "spoor/dfu.h"
#include "spoor/error.h"
#include "spoor/source.h"

#define IMAGE_MAX (16u << 20)

static volatile sig_atomic_t interrupted;

static void flash_usage(FILE *out)
{
	fputs("usage: spoor flash --probe SOURCE [-q] IMAGE\n"
	      "Update the probe's firmware with IMAGE (a spoor probe firmware image: header with\n"
	      "target ID, version, length and CRC-32). The image is checked against the probe\n"
	      "before anything is sent; the probe checks it again before it commits it, the\n"
	      "host reads it back, and after a restart the probe must report the image's\n"
	      "version. A refused, damaged or interrupted update leaves the old firmware\n"
	      "running. Stock 'dfu-util -D IMAGE' works too.\n\n"
	      "  --probe SOURCE       usb[:SERIAL] | tcp:HOST:PORT (the sim probe)\n"
	      "  -q, --quiet          no progress\n"
	      "  -h, --help           this help\n", out);
	fputs(cli_exit_usage, out);
}

static void on_signal(int sig)
{
	interrupted = sig;
}

struct flash {
	bool quiet, tty;
	int shown;
};

static void progress(void *ctx, enum spoor_dfu_phase phase, uint64_t done, uint64_t total)
{
	static const char *const names[] = {
		[SPOOR_DFU_PHASE_DETACH] = "switching into DFU mode",
		[SPOOR_DFU_PHASE_DOWNLOAD] = "writing",
		[SPOOR_DFU_PHASE_MANIFEST] = "the probe checks the image",
		[SPOOR_DFU_PHASE_VERIFY] = "reading back",
		[SPOOR_DFU_PHASE_RESET] = "restarting the probe",
	};
	struct flash *f = ctx;
	int pct = total ? (int)(done * 100 / total) : -1;

	if (f->quiet)
		return;
	if (pct < 0) {
		fprintf(stderr, "%sspoor flash: %s\n", f->tty ? "\r\033[K" : "", names[phase]);
		f->shown = -1;
		return;
	}
	/* On a terminal every percent; in a log every quarter. */
	if (pct == f->shown || (!f->tty && pct % 25 && done != total))
		return;
	f->shown = pct;
	fprintf(stderr, f->tty ? "\r\033[Kspoor flash: %s %3d%%" : "spoor flash: %s %d%%\n",
		names[phase], pct);
	if (f->tty && done == total)
		fputc('\n', stderr);
}

static bool cancel(void *ctx)
{
	(void)ctx;
	return interrupted != 0;
}

/* Reads the image file (a regular file of at most IMAGE_MAX); NULL after a message. */
static uint8_t *read_image(const char *path, size_t *len)
{
	struct stat st;
	uint8_t *buf = NULL;
	ssize_t n = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0) {
		fprintf(stderr, "spoor flash: cannot open '%s': %s\n", path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || !st.st_size ||
	    (uint64_t)st.st_size > IMAGE_MAX) {
		fprintf(stderr, "spoor flash: '%s' is not an image file (a regular file of 1 byte "
			"to %u MiB)\n", path, IMAGE_MAX >> 20);
		goto out;
	}
	buf = malloc((size_t)st.st_size);
	if (buf)
		n = pread(fd, buf, (size_t)st.st_size, 0);
	if (!buf || n != st.st_size) {
		fprintf(stderr, "spoor flash: reading '%s': %s\n", path,
			!buf ? "out of memory" : n < 0 ? strerror(errno) : "short read");
		free(buf);
		buf = NULL;
		goto out;
	}
	*len = (size_t)n;
out:
	close(fd);
	return buf;
}

int cmd_flash(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "probe", required_argument, NULL, 'p' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct spoor_dfu_ops ops = { .progress = progress, .cancel = cancel };
	struct sigaction sa = { .sa_handler = on_signal };
	struct flash f = { .shown = -1 };
	struct spoor_source *src = NULL;
	const char *spec = NULL;
	struct spoor_diag diag;
	uint32_t old_v = 0, new_v = 0;
	uint8_t *img = NULL;
	size_t len = 0;
	int c, ret, status = CLI_EXIT_ERROR;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":qh", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			spec = optarg;
			break;
		case 'q':
			f.quiet = true;
			break;
		case 'h':
			flash_usage(stdout);
			return CLI_EXIT_CLEAN;
		default:
			if (c == ':')
				fprintf(stderr, "spoor flash: option '%s' needs a value\n",
					argv[optind - 1]);
			else
				fprintf(stderr, "spoor flash: unknown option '%s' (try 'spoor flash "
					"--help')\n", argv[optind - 1]);
			return CLI_EXIT_ERROR;
		}
	}
	if (optind != argc - 1 || !spec) {
		fprintf(stderr, "spoor flash: expected --probe SOURCE and one IMAGE; try 'spoor "
			"flash --help'\n");
		return CLI_EXIT_ERROR;
	}
	img = read_image(argv[optind], &len);
	if (!img)
		return CLI_EXIT_ERROR;
	f.tty = isatty(STDERR_FILENO);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	ret = spoor_source_open(spec, &src, &diag);
	if (ret < 0) {
		fprintf(stderr, "spoor flash: %s\n", diag.msg);
		goto out;
	}
	ret = spoor_dfu_flash(src, img, len, &ops, &f, &old_v, &new_v, &diag);
	if (ret < 0) {
		fprintf(stderr, "%sspoor flash: %s\n", f.tty && !f.quiet ? "\r\033[K" : "",
			diag.msg);
		goto out;
	}
	if (!f.quiet)
		fprintf(stderr, "spoor flash: %s: firmware %u.%u.%u -> %u.%u.%u, verified\n",
			spoor_source_name(src), old_v >> 16, (old_v >> 8) & 0xff, old_v & 0xff,
			new_v >> 16, (new_v >> 8) & 0xff, new_v & 0xff);
	status = CLI_EXIT_CLEAN;
out:
	spoor_source_close(src);
	free(img);
	return status;
}
