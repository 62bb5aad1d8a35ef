// SPDX-License-Identifier: MIT
/* The live-probe loop shared by spoor capture, stream and gdbserver --probe (cli_probe.h). */
#define _GNU_SOURCE	/* asprintf() */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "cli_probe.h"
#include "spoor/error.h"

#define STOP_DRAIN_MS 5000	/* after STOP: time for the probe's END */
#define STATUS_EVERY 0.5	/* seconds between status lines */

static volatile sig_atomic_t stop_signal;

const char cli_probe_usage[] =
	"  --probe SOURCE       usb[:SERIAL] | ftdi[:SERIAL[:A|B]] | tcp:HOST:PORT | file:PATH\n"
	"                       ('spoor probes' lists the attached ones)\n"
	"  --port-width N       trace port width in bits: 1, 2, 4, 8, 16 (default 4, or\n"
	"                       the widest the probe has when it has no 4-bit port)\n"
	"  --ddr                sample on both clock edges\n"
	"  --falling-edge       sample on the falling edge\n"
	"  --duration SECONDS   stop after this long (default: at Ctrl-C)\n"
	"  --idle SECONDS       stop once the trace has been silent this long (after its\n"
	"                       first byte): the target finished\n"
	"  --size SIZE          stop after this many trace bytes, lost ones included (k, M,\n"
	"                       G); what the probe drains after that is not kept\n"
	"  --reconnect SECONDS  wait this long for an unplugged probe to come back (default 10;\n"
	"                       0: stop at once)\n"
	"  --status on|off      the status line on stderr (default: when it is a terminal)\n";

static const struct option probe_options[CLI_PROBE_NOPTS] = {
	{ "probe", required_argument, NULL, CLI_OPT_PROBE },
	{ "port-width", required_argument, NULL, CLI_OPT_PORT_WIDTH },
	{ "ddr", no_argument, NULL, CLI_OPT_DDR },
	{ "falling-edge", no_argument, NULL, CLI_OPT_FALLING },
	{ "duration", required_argument, NULL, CLI_OPT_DURATION },
	{ "size", required_argument, NULL, CLI_OPT_SIZE },
	{ "reconnect", required_argument, NULL, CLI_OPT_RECONNECT },
	{ "status", required_argument, NULL, CLI_OPT_STATUS },
	{ "idle", required_argument, NULL, CLI_OPT_IDLE },
};

/* Seconds on the monotonic clock. */
static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

void cli_probe_init(struct cli_probe *p, const char *cmd)
{
	memset(p, 0, sizeof(*p));
	p->cmd = cmd;
	/* port width 0: the probe's default (spoor_source_config_for()) */
	p->reconnect_s = 10;
	p->status_line = -1;
}

void cli_probe_options(const struct option *own, struct option *out)
{
	size_t n = 0;

	memcpy(out, probe_options, sizeof(probe_options));
	while (own[n].name)
		n++;
	memcpy(out + CLI_PROBE_NOPTS, own, (n + 1) * sizeof(*own));
}

int cli_probe_option(struct cli_probe *p, int c, const char *arg)
{
	unsigned long v;
	char *end;

	switch (c) {
	case CLI_OPT_PROBE:
		p->spec = arg;
		return 1;
	case CLI_OPT_PORT_WIDTH:
		if (!cli_parse_uint(p->cmd, "--port-width", arg, 1, 16, &v))
			return -1;
		if (v != 1 && v != 2 && v != 4 && v != 8 && v != 16) {
			fprintf(stderr, "spoor %s: --port-width: %lu is not 1, 2, 4, 8 or 16\n",
				p->cmd, v);
			return -1;
		}
		p->cfg.port_width = (uint8_t)v;
		return 1;
	case CLI_OPT_DDR:
		p->cfg.flags |= SPOOR_PROBE_CFG_DDR;
		return 1;
	case CLI_OPT_FALLING:
		p->cfg.flags |= SPOOR_PROBE_CFG_FALLING;
		return 1;
	case CLI_OPT_DURATION:
	case CLI_OPT_IDLE: {
		double *d = c == CLI_OPT_IDLE ? &p->idle : &p->duration;

		errno = 0;
		*d = strtod(arg, &end);
		if (errno || end == arg || *end || !(*d > 0) || *d > 1e7) {
			fprintf(stderr, "spoor %s: %s: '%s' is not a number of seconds\n", p->cmd,
				c == CLI_OPT_IDLE ? "--idle" : "--duration", arg);
			return -1;
		}
		return 1;
	}
	case CLI_OPT_SIZE:
		return cli_parse_size(p->cmd, "--size", arg, &p->size) ? 1 : -1;
	case CLI_OPT_RECONNECT:
		if (!cli_parse_uint(p->cmd, "--reconnect", arg, 0, 86400, &v))
			return -1;
		p->reconnect_s = (unsigned)v;
		return 1;
	case CLI_OPT_STATUS: {
		static const char *const names[] = { "off", "on" };
		int i = cli_choice(p->cmd, "--status", arg, names, 2);

		if (i < 0)
			return -1;
		p->status_line = i;
		return 1;
	}
	default:
		return 0;
	}
}

static void on_stop_signal(int sig)
{
	stop_signal = sig;
}

bool cli_probe_stopping(void)
{
	return stop_signal != 0;
}

/* Writes the capture file's header and opens it; returns 0 or an exit status. */
static int open_capture(struct cli_probe *p, const struct spoor_encap_config *encap,
			const char *text)
{
	struct spoor_capture_header h = { .version = SPOOR_CAPTURE_VERSION, .encap = *encap };
	struct spoor_diag diag;
	char *t = NULL;
	int n, ret;

	n = asprintf(&t, "probe=%s\nserial=%s\nfirmware=0x%06" PRIx32 "\nport_width=%u\n%s",
		     spoor_source_name(p->src), p->info.serial, p->info.firmware_version,
		     p->cfg.port_width, text ? text : "");
	if (n < 0) {
		fprintf(stderr, "spoor %s: out of memory\n", p->cmd);
		return CLI_EXIT_ERROR;
	}
	h.text = t;
	h.text_len = (size_t)n;
	ret = spoor_capture_writer_open(p->cap_path, &h, &p->cap, &diag);
	free(t);
	if (ret < 0) {
		fprintf(stderr, "spoor %s: %s\n", p->cmd, diag.msg);
		return CLI_EXIT_ERROR;
	}
	return 0;
}

int cli_probe_start(struct cli_probe *p, const struct spoor_encap_config *encap,
		    const char *cap_path, const char *text)
{
	struct sigaction sa = { .sa_handler = on_stop_signal };
	struct spoor_diag diag;
	int ret;

	if (!p->spec) {
		fprintf(stderr, "spoor %s: no probe given: --probe usb[:SERIAL], "
			"ftdi[:SERIAL], tcp:HOST:PORT or file:PATH ('spoor probes' lists them)\n",
			p->cmd);
		return CLI_EXIT_ERROR;
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	ret = spoor_source_open(p->spec, &p->src, &diag);
	if (ret < 0) {
		fprintf(stderr, "spoor %s: %s\n", p->cmd, diag.msg);
		return CLI_EXIT_ERROR;
	}
	ret = spoor_source_info(p->src, &p->info);
	if (ret < 0) {
		fprintf(stderr, "spoor %s: %s: reading the probe's info: %s\n", p->cmd,
			spoor_source_name(p->src), spoor_errstr(ret));
		return CLI_EXIT_ERROR;
	}
	spoor_source_config_for(&p->cfg, encap, &p->info);
	ret = spoor_source_configure(p->src, &p->cfg);
	if (ret < 0) {
		fprintf(stderr, "spoor %s: %s: the probe refused the configuration (%u-bit port%s%s, "
			"%s): %s\n", p->cmd, spoor_source_name(p->src), p->cfg.port_width,
			p->cfg.flags & SPOOR_PROBE_CFG_DDR ? ", DDR" : "",
			p->cfg.flags & SPOOR_PROBE_CFG_FALLING ? ", falling edge" : "",
			spoor_encap_kind_name(encap->kind), spoor_errstr(ret));
		return CLI_EXIT_ERROR;
	}
	if (cap_path) {
		p->cap_path = cap_path;
		ret = open_capture(p, encap, text);
		if (ret)
			return ret;
	}
	ret = spoor_source_start(p->src);
	if (ret < 0) {
		fprintf(stderr, "spoor %s: %s: starting the capture: %s\n", p->cmd,
			spoor_source_name(p->src), spoor_errstr(ret));
		return CLI_EXIT_ERROR;
	}
	if (p->status_line < 0)
		p->status_line = isatty(STDERR_FILENO);
	p->t_start = p->t_status = now_s();
	return 0;
}

/* What the poll hands on: to the capture file first, then to the consumer. */
struct relay {
	struct cli_probe *p;
	const struct spoor_source_ops *ops;
	void *ctx;
};

/* Notes a failed capture write (the first one's errno). */
static void cap_failed(struct cli_probe *p)
{
	if (!p->cap_errno)
		p->cap_errno = errno ? errno : EIO;
}

static void relay_data(void *arg, uint64_t offset, const uint8_t *buf, size_t len)
{
	struct relay *r = arg;
	struct cli_probe *p = r->p;

	/* --size: the bytes past it (the probe's buffer drains after STOP) are not kept. */
	if (p->size) {
		uint64_t have = p->bytes + p->lost;

		if (have >= p->size)
			return;
		if (len > p->size - have)
			len = (size_t)(p->size - have);
	}

	/* Bytes missing that no OVERFLOW announced: a loss all the same. */
	if (offset > p->next_offset && p->bytes) {
		uint64_t lost = offset - p->next_offset;

		p->losses++;
		p->lost += lost;
		if (p->cap && !p->cap_errno && spoor_capture_write_loss(p->cap, lost))
			cap_failed(p);
		if (r->ops && r->ops->loss)
			r->ops->loss(r->ctx, p->next_offset, lost);
	}
	if (p->cap && !p->cap_errno && spoor_capture_write_data(p->cap, buf, len))
		cap_failed(p);
	p->bytes += len;
	p->next_offset = offset + len;
	p->t_data = now_s();
	if (r->ops && r->ops->data)
		r->ops->data(r->ctx, offset, buf, len);
}

static void relay_loss(void *arg, uint64_t offset, uint64_t lost)
{
	struct relay *r = arg;
	struct cli_probe *p = r->p;

	if (lost != SPOOR_SOURCE_LOST_UNKNOWN) {
		p->losses++;
		p->lost += lost;
		p->next_offset = offset + lost;
	} else {
		p->next_offset = 0;	/* back after an unplug: the probe counts from 0 again */
	}
	if (p->cap && !p->cap_errno && spoor_capture_write_loss(p->cap, lost))
		cap_failed(p);
	if (r->ops && r->ops->loss)
		r->ops->loss(r->ctx, offset, lost);
}

static void relay_end(void *arg, uint64_t total)
{
	struct relay *r = arg;

	r->p->ended = true;
	if (r->ops && r->ops->end)
		r->ops->end(r->ctx, total);
}

static void relay_error(void *arg, uint64_t at, int reason, const char *what)
{
	struct relay *r = arg;

	r->p->stream_errors++;
	fprintf(stderr, "%sspoor %s: %s: probe stream offset %" PRIu64 ": %s; resynchronising\n",
		r->p->status_line ? "\r\033[K" : "", r->p->cmd, spoor_source_name(r->p->src), at,
		what);
	if (r->ops && r->ops->error)
		r->ops->error(r->ctx, at, reason, what);
}

/* Prints "SIZE UNIT" of @n bytes into @buf. */
static const char *human(char *buf, size_t size, double n)
{
	static const char *const units[] = { "B", "kB", "MB", "GB", "TB" };
	int u = 0;

	while (n >= 1000 && u < 4) {
		n /= 1000;
		u++;
	}
	snprintf(buf, size, u ? "%.1f %s" : "%.0f %s", n, units[u]);
	return buf;
}

/* The status line: rate, total, overflows, sync state. */
static void status_line(struct cli_probe *p, bool force)
{
	double t = now_s();
	char rate[32], total[32], lost[32];

	if (!p->status_line || (!force && t - p->t_status < STATUS_EVERY))
		return;
	human(rate, sizeof(rate), (double)(p->bytes - p->bytes_status) / (t - p->t_status + 1e-9));
	human(total, sizeof(total), (double)p->bytes);
	human(lost, sizeof(lost), (double)p->lost);
	fprintf(stderr, "\r\033[K%s  %s/s  %s  %.0f s  overflows %" PRIu64 " (%s lost)%s%s",
		spoor_source_name(p->src), rate, total, t - p->t_start, p->losses, lost,
		p->sync_state ? "  " : "", p->sync_state ? p->sync_state : "");
	p->t_status = t;
	p->bytes_status = p->bytes;
}

/* Asks the probe to stop; false (after a message) if it can't be asked. */
static bool send_stop(struct cli_probe *p)
{
	int ret = spoor_source_stop(p->src);

	if (ret < 0) {
		fprintf(stderr, "%sspoor %s: %s: stopping the capture: %s\n",
			p->status_line ? "\r\033[K" : "", p->cmd, spoor_source_name(p->src),
			spoor_errstr(ret));
		return false;
	}
	return true;
}

/* The probe went away: waits for it; returns 0 (back), 1 (the end) or an exit status. */
static int unplugged(struct cli_probe *p)
{
	int ret;

	p->unplugs++;
	fprintf(stderr, "%sspoor %s: %s: the probe is gone (unplugged?) after %" PRIu64
		" trace bytes%s; they are %s\n", p->status_line ? "\r\033[K" : "", p->cmd,
		spoor_source_name(p->src), p->bytes,
		p->reconnect_s ? "; waiting for it to come back" : "",
		p->cap ? "in the capture" : "handed on");
	if (!p->reconnect_s || stop_signal) {
		p->gone = true;
		return 1;
	}
	ret = spoor_source_reconnect(p->src, (int)p->reconnect_s * 1000);
	if (ret < 0) {
		fprintf(stderr, "spoor %s: %s: %s\n", p->cmd, spoor_source_name(p->src),
			ret == SPOOR_E_TIMEOUT ? "did not come back in time" : spoor_errstr(ret));
		p->gone = true;
		return 1;
	}
	fprintf(stderr, "spoor %s: %s: back; capturing again (what it sent while away is "
		"lost)\n", p->cmd, spoor_source_name(p->src));
	return 0;
}

int cli_probe_poll(struct cli_probe *p, int timeout_ms, const struct spoor_source_ops *ops,
		   void *ctx)
{
	static const struct spoor_source_ops relay_ops = {
		.data = relay_data, .loss = relay_loss, .end = relay_end, .error = relay_error,
	};
	struct relay r = { .p = p, .ops = ops, .ctx = ctx };
	bool limit;
	int ret;

	if (p->ended || p->gone)
		return 1;
	limit = (p->duration > 0 && now_s() - p->t_start >= p->duration) ||
		(p->size && p->bytes + p->lost >= p->size) || p->cap_errno ||
		(p->idle > 0 && p->bytes && now_s() - p->t_data >= p->idle);
	if ((stop_signal || limit) && !p->stop_sent) {
		p->stop_sent = true;
		p->t_stop = now_s();
		if (!send_stop(p))
			return 1;
	}
	if (p->stop_sent && now_s() - p->t_stop > STOP_DRAIN_MS / 1000.0) {
		fprintf(stderr, "%sspoor %s: %s: no end of capture from the probe %d s after "
			"STOP; closing\n", p->status_line ? "\r\033[K" : "", p->cmd,
			spoor_source_name(p->src), STOP_DRAIN_MS / 1000);
		p->gone = true;
		return 1;
	}
	ret = spoor_source_poll(p->src, timeout_ms, &relay_ops, &r);
	status_line(p, false);
	if (ret == SPOOR_E_NO_DEVICE)
		return unplugged(p);
	if (ret < 0) {
		fprintf(stderr, "%sspoor %s: %s: %s\n", p->status_line ? "\r\033[K" : "", p->cmd,
			spoor_source_name(p->src), spoor_errstr(ret));
		p->gone = true;
		return 1;
	}
	return ret == SPOOR_SOURCE_DONE ? 1 : 0;
}

int cli_probe_finish(struct cli_probe *p, bool quiet)
{
	char total[32], lost[32];
	int status = CLI_EXIT_CLEAN;

	if (!p->t_start) {
		/* It never started: the reason is said already. */
		spoor_source_close(p->src);
		p->src = NULL;
		if (p->cap)
			spoor_capture_writer_close(p->cap);
		p->cap = NULL;
		return CLI_EXIT_ERROR;
	}
	status_line(p, true);
	if (p->status_line)
		fputc('\n', stderr);
	if (p->cap && spoor_capture_writer_close(p->cap) && !p->cap_errno)
		p->cap_errno = errno ? errno : EIO;
	p->cap = NULL;
	spoor_source_close(p->src);
	p->src = NULL;
	if (p->cap_errno) {
		fprintf(stderr, "spoor %s: writing '%s': %s; the capture holds what was written "
			"before\n", p->cmd, p->cap_path, strerror(p->cap_errno));
		return CLI_EXIT_ERROR;
	}
	if (p->losses || p->unplugs || p->stream_errors || p->gone)
		status = CLI_EXIT_GAPS;
	if (!quiet || status)
		fprintf(stderr, "spoor %s: %s trace bytes%s%s; %" PRIu64 " overflow%s (%s lost), %"
			PRIu64 " unplug%s, %" PRIu64 " stream error%s\n", p->cmd,
			human(total, sizeof(total), (double)p->bytes), p->cap_path ? " into " : "",
			p->cap_path ? p->cap_path : "", p->losses, p->losses == 1 ? "" : "s",
			human(lost, sizeof(lost), (double)p->lost), p->unplugs,
			p->unplugs == 1 ? "" : "s", p->stream_errors,
			p->stream_errors == 1 ? "" : "s");
	return status;
}
