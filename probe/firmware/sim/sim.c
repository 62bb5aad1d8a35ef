// SPDX-License-Identifier: MIT
/*
 * The sim port's device model (sim.h): the firmware core (capture buffer,
 * vendor requests, bulk records; core/fw.h) and its DFU interface
 * (core/dfu.h) over a flash of two image slots, kept in a file (or in
 * memory), behind one lock; and the trace port: a thread feeding the
 * buffer from spoor virt's trace port or from a file (a capture file or a
 * raw one) at a chosen rate, with an injected loss if asked.
 *
 * Flash file: a 4 KiB boot block ("SPOORSIMFLASH", u32 slot size, u32 boot
 * slot, u32 CRC-32 of those 24 bytes), then the two slots of 1 MiB.  A
 * new (or empty) file gets firmware 1.0.0 for the sim port in slot 0.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "dfu.h"
#include "fw.h"
#include "sim.h"
#include "sim_front.h"
#include "spoor/capture_file.h"
#include "spoor/error.h"

#define SIM_SLOT_SIZE (1u << 20)
#define SIM_FLASH_META 4096u
#define SIM_FLASH_SIZE (SIM_FLASH_META + 2u * SIM_SLOT_SIZE)
#define SIM_FLASH_MAGIC "SPOORSIMFLASH\0\0\0"	/* 16 bytes */
#define SIM_META_SIZE 28			/* magic, slot size, boot slot, CRC */
#define SIM_FIRST_VERSION 0x010000u		/* 1.0.0 */
#define SIM_DEFAULT_BUFFER (8u << 20)
#define SIM_MAX_BUFFER (1u << 30)
#define SIM_CHUNK (256u << 10)			/* bytes read from the input at a time */
#define SIM_POLL_MS 100				/* the input thread looks at halt this often */
#define SIM_PORT_WIDTHS 0x808bu			/* 1, 2, 4, 8 and 16 bits */

enum sim_input_kind { SIM_IN_NONE, SIM_IN_TCP, SIM_IN_RAW, SIM_IN_CAPTURE };

/* The input thread's own state (touched by it alone once it runs). */
struct sim_input {
	enum sim_input_kind kind;
	char host[256], port[16];	/* SIM_IN_TCP */
	int fd;				/* raw file or trace port socket; -1 */
	struct spoor_capture_reader *rd;
	uint8_t *chunk;			/* SIM_CHUNK bytes for raw reads */
	const uint8_t *data;		/* bytes read, not fed yet */
	size_t len;
	uint64_t lost;			/* bytes the input lost (LOSS), due before data */
	uint64_t off;			/* the input's own trace offset (capture files) */
	bool eof, reported;
	bool any;			/* this pass over the file gave bytes or a loss */
	uint64_t gen;			/* the capture it feeds (sim_probe.gen) */
	struct timespec t0;		/* --rate: the pacing's start ... */
	double paced;			/* ... and the bytes delivered since */
};

struct sim_probe {
	struct sim_options opt;
	char serial[SPOOR_PROBE_SERIAL_MAX + 1];
	pthread_mutex_t lock;
	pthread_cond_t room;	/* for the input: room, a new capture, halt */
	pthread_cond_t fed;	/* for the fronts: bulk bytes may be there */
	int efd;		/* the same as an eventfd (sim_probe_event_fd) */
	bool efd_set;
	/* The firmware. */
	struct spoor_fw fw;
	uint8_t *buf;
	struct spoor_fw_dfu dfu;
	struct spoor_fw_flash flash;
	bool dfu_mode;
	uint32_t version;	/* of the image running */
	/* The flash: SIM_FLASH_SIZE bytes, mapped from the file or in memory. */
	uint8_t *mem;
	int flash_fd;
	unsigned boot, running;	/* the slot to boot, the slot running */
	/* The trace port. */
	struct sim_input in;
	pthread_t thread;
	bool started, halt;
	uint64_t gen;		/* STARTs and resets so far */
	unsigned input_errors;
};

/* Little-endian helpers; return the value read. */
static uint32_t get32(const uint8_t *b)
{
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static void put32(uint8_t *b, uint32_t v)
{
	b[0] = (uint8_t)v;
	b[1] = (uint8_t)(v >> 8);
	b[2] = (uint8_t)(v >> 16);
	b[3] = (uint8_t)(v >> 24);
}

/* Writes "why" for the caller of sim_probe_new(); returns @err. */
static int failf(int err, char *why, size_t size, const char *fmt, const char *a, const char *b)
{
	if (why && size)
		snprintf(why, size, fmt, a, b);
	return err;
}

/* ---- the flash --------------------------------------------------------------- */

/* Returns slot @slot's bytes. */
static uint8_t *slot_mem(struct sim_probe *p, unsigned slot)
{
	return p->mem + SIM_FLASH_META + (size_t)slot * SIM_SLOT_SIZE;
}

/* Checks the image in @slot; returns 0 with its version, or a negative spoor_error. */
static int image_version(struct sim_probe *p, unsigned slot, uint32_t *version)
{
	const uint8_t *b = slot_mem(p, slot);
	struct spoor_probe_image img;
	int r = spoor_probe_image_check(b, SPOOR_PROBE_IMAGE_HEADER, SPOOR_PROBE_TARGET_SIM, &img);

	if (r == SPOOR_E_BAD_HEADER || r == SPOOR_E_BAD_CONFIG)
		return r;
	if (img.length > SIM_SLOT_SIZE - SPOOR_PROBE_IMAGE_HEADER)
		return SPOOR_E_BAD_LENGTH;
	r = spoor_probe_image_check(b, SPOOR_PROBE_IMAGE_HEADER + img.length,
				    SPOOR_PROBE_TARGET_SIM, &img);
	if (!r)
		*version = img.version;
	return r;
}

/* Writes the boot block (boot slot @boot); returns 0 or -1. */
static int write_meta(struct sim_probe *p, unsigned boot)
{
	uint8_t *m = p->mem;

	memcpy(m, SIM_FLASH_MAGIC, 16);
	put32(m + 16, SIM_SLOT_SIZE);
	put32(m + 20, boot);
	put32(m + 24, spoor_probe_crc32(0, m, 24));
	if (p->flash_fd >= 0 && msync(p->mem, SIM_FLASH_SIZE, MS_SYNC))
		return -1;
	return 0;
}

/* Erases the flash and writes firmware 1.0.0 into slot 0; returns 0 or -1. */
static int flash_format(struct sim_probe *p)
{
	static const char body[] = "spoor-probe-sim firmware 1.0.0\n";
	struct spoor_probe_image img = {
		.target = SPOOR_PROBE_TARGET_SIM, .version = SIM_FIRST_VERSION,
		.length = sizeof(body) - 1,
	};
	uint8_t *s = slot_mem(p, 0);

	memset(p->mem, 0xff, SIM_FLASH_SIZE);
	img.crc32 = spoor_probe_crc32(0, body, img.length);
	spoor_probe_image_header(&img, s);
	memcpy(s + SPOOR_PROBE_IMAGE_HEADER, body, img.length);
	return write_meta(p, 0);
}

/* Reads the boot block; returns 0 or SPOOR_E_BAD_FORMAT. */
static int read_meta(struct sim_probe *p)
{
	const uint8_t *m = p->mem;

	if (memcmp(m, SIM_FLASH_MAGIC, 16) || get32(m + 16) != SIM_SLOT_SIZE ||
	    get32(m + 20) > 1 || get32(m + 24) != spoor_probe_crc32(0, m, 24))
		return SPOOR_E_BAD_FORMAT;
	p->boot = get32(m + 20);
	return 0;
}

/* Maps (or creates) the flash file, or makes a flash in memory; returns 0 or an error with @why. */
static int flash_open(struct sim_probe *p, char *why, size_t size)
{
	const char *path = p->opt.flash_path;
	struct stat st;
	void *m;

	if (!path) {
		p->mem = malloc(SIM_FLASH_SIZE);
		if (!p->mem)
			return SPOOR_E_NOMEM;
		return flash_format(p) ? SPOOR_E_IO : 0;
	}
	p->flash_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (p->flash_fd < 0 || fstat(p->flash_fd, &st))
		return failf(SPOOR_E_IO, why, size, "%s: %s", path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return failf(SPOOR_E_NOT_REGULAR, why, size, "%s: %s", path, "not a regular file");
	if (flock(p->flash_fd, LOCK_EX | LOCK_NB))
		return failf(SPOOR_E_BUSY, why, size, "%s: %s", path,
			     "in use by another spoor-probe-sim");
	if (st.st_size && st.st_size != SIM_FLASH_SIZE)
		return failf(SPOOR_E_BAD_FORMAT, why, size, "%s: %s", path,
			     "not a sim flash file (wrong size)");
	if (!st.st_size && ftruncate(p->flash_fd, SIM_FLASH_SIZE))
		return failf(SPOOR_E_IO, why, size, "%s: %s", path, strerror(errno));
	m = mmap(NULL, SIM_FLASH_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, p->flash_fd, 0);
	if (m == MAP_FAILED)
		return failf(SPOOR_E_IO, why, size, "%s: %s", path, strerror(errno));
	p->mem = m;
	if (!st.st_size && flash_format(p))
		return failf(SPOOR_E_IO, why, size, "%s: %s", path, strerror(errno));
	if (read_meta(p))
		return failf(SPOOR_E_BAD_FORMAT, why, size, "%s: %s", path,
			     "not a sim flash file (bad boot block)");
	return 0;
}

/* Flash callbacks for the DFU core (called under the lock); return 0 or -1. */
static int f_erase(void *ctx, unsigned slot)
{
	if (slot > 1)
		return -1;
	memset(slot_mem(ctx, slot), 0xff, SIM_SLOT_SIZE);
	return 0;
}

static int f_write(void *ctx, unsigned slot, uint32_t off, const uint8_t *b, size_t n)
{
	if (slot > 1 || off > SIM_SLOT_SIZE || n > SIM_SLOT_SIZE - off)
		return -1;
	memcpy(slot_mem(ctx, slot) + off, b, n);
	return 0;
}

static int f_read(void *ctx, unsigned slot, uint32_t off, uint8_t *b, size_t n)
{
	if (slot > 1 || off > SIM_SLOT_SIZE || n > SIM_SLOT_SIZE - off)
		return -1;
	memcpy(b, slot_mem(ctx, slot) + off, n);
	return 0;
}

static int f_commit(void *ctx, unsigned slot)
{
	struct sim_probe *p = ctx;

	if (slot > 1 || write_meta(p, slot))
		return -1;
	p->boot = slot;
	return 0;
}

/* The slot running (a download goes to the other one). */
static unsigned f_active(void *ctx)
{
	return ((struct sim_probe *)ctx)->running;
}

/* Boots: the boot slot's image, else the other's.  Returns 0 or SPOOR_E_BAD_HEADER (none runs). */
static int boot(struct sim_probe *p)
{
	uint32_t v;

	if (!image_version(p, p->boot, &v)) {
		p->running = p->boot;
	} else if (!image_version(p, !p->boot, &v)) {
		fprintf(stderr, "spoor-probe-sim: the image in flash slot %u does not check; "
			"slot %u runs\n", p->boot, !p->boot);
		p->running = !p->boot;
	} else {
		return SPOOR_E_BAD_HEADER;
	}
	p->version = v;
	return 0;
}

/* (Re)starts the firmware: the capture core idle, DFU in its mode.  Under the lock. */
static void fw_start(struct sim_probe *p)
{
	struct spoor_probe_info info = {
		.protocol_version = SPOOR_PROBE_PROTOCOL_VERSION,
		.firmware_version = p->version,
		.target = SPOOR_PROBE_TARGET_SIM,
		.capabilities = SPOOR_PROBE_CAP_DDR | SPOOR_PROBE_CAP_FALLING_EDGE |
				SPOOR_PROBE_CAP_DFU,
		.port_widths = SIM_PORT_WIDTHS,
	};

	memcpy(info.serial, p->serial, sizeof(info.serial));
	spoor_fw_init(&p->fw, p->buf, p->opt.buffer_size, &info);
	spoor_fw_dfu_init(&p->dfu, &p->flash, SPOOR_PROBE_TARGET_SIM, !p->dfu_mode);
}

/* ---- signalling ------------------------------------------------------------------ */

/* Are there bulk IN bytes to send (data, a loss, the END record)? */
static bool has_bulk(const struct spoor_fw *fw)
{
	return fw->head != fw->tail || fw->nmarks || fw->end_due;
}

/* Tells the fronts that bulk bytes may be there.  Under the lock. */
static void notify(struct sim_probe *p)
{
	uint64_t one = 1;

	pthread_cond_broadcast(&p->fed);
	if (!p->efd_set && write(p->efd, &one, sizeof(one)) == (ssize_t)sizeof(one))
		p->efd_set = true;
}

/* Clears the event fd when nothing is to be sent.  Under the lock. */
static void clear_event(struct sim_probe *p)
{
	uint64_t v;

	if (p->efd_set && !has_bulk(&p->fw)) {
		if (read(p->efd, &v, sizeof(v)) < 0 && errno != EAGAIN)
			return;
		p->efd_set = false;
	}
}

/* Sets @ts to @ms from now on the monotonic clock. */
static void deadline(struct timespec *ts, long ms)
{
	clock_gettime(CLOCK_MONOTONIC, ts);
	ts->tv_sec += ms / 1000;
	ts->tv_nsec += (ms % 1000) * 1000000L;
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

/* ---- the trace port ---------------------------------------------------------------- */

/* Reports an input failure on stderr (once per pass over a file) and counts it. */
static void input_error(struct sim_probe *p, const char *what, const char *detail)
{
	struct sim_input *in = &p->in;

	if (!in->reported)
		fprintf(stderr, "spoor-probe-sim: %s: %s: %s\n",
			p->opt.input, what, detail);
	in->reported = true;
	pthread_mutex_lock(&p->lock);
	p->input_errors++;
	pthread_mutex_unlock(&p->lock);
}

/* Connects to the trace port (spoor virt's); returns the socket or -1 (reported). */
static int tcp_connect(struct sim_probe *p)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *ai, *a;
	int fd = -1, r;

	r = getaddrinfo(p->in.host, p->in.port, &hints, &ai);
	if (r) {
		input_error(p, "cannot resolve", gai_strerror(r));
		return -1;
	}
	for (a = ai; a; a = a->ai_next) {
		fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
		if (fd >= 0 && !connect(fd, a->ai_addr, a->ai_addrlen))
			break;
		if (fd >= 0)
			close(fd);
		fd = -1;
	}
	freeaddrinfo(ai);
	if (fd < 0)
		input_error(p, "cannot connect", strerror(errno));
	return fd;
}

/*
 * Starts the input over: a file from its start, for a new capture (@capture:
 * the pacing too) or the next pass of --loop.  Outside the lock.
 */
static void input_restart(struct sim_probe *p, bool capture)
{
	struct sim_input *in = &p->in;
	struct spoor_diag diag;

	if (capture) {
		clock_gettime(CLOCK_MONOTONIC, &in->t0);
		in->paced = 0;
		in->reported = false;
	}
	in->lost = 0;
	in->off = 0;
	in->any = false;
	switch (in->kind) {
	case SIM_IN_TCP:
		/* A stream: what was read stays; the port is plugged in at the first START. */
		if (in->fd < 0)
			in->fd = tcp_connect(p);
		in->eof = in->fd < 0;
		return;
	case SIM_IN_RAW:
		in->len = 0;
		in->eof = lseek(in->fd, 0, SEEK_SET) < 0;
		if (in->eof)
			input_error(p, "cannot rewind", strerror(errno));
		return;
	case SIM_IN_CAPTURE:
		in->len = 0;
		spoor_capture_reader_close(in->rd);
		in->rd = NULL;
		in->eof = spoor_capture_reader_open(p->opt.input, &in->rd, &diag) < 0;
		if (in->eof)
			input_error(p, "cannot reopen", diag.msg);
		return;
	default:
		in->eof = true;
		return;
	}
}

/* Reads the next bytes (or loss) of the input.  Outside the lock. */
static void input_read(struct sim_probe *p)
{
	struct sim_input *in = &p->in;
	struct spoor_capture_record rec;
	struct pollfd pfd;
	ssize_t n;
	char what[64];
	int r;

	switch (in->kind) {
	case SIM_IN_TCP:
		pfd = (struct pollfd){ .fd = in->fd, .events = POLLIN };
		if (poll(&pfd, 1, SIM_POLL_MS) <= 0)
			return;
		n = recv(in->fd, in->chunk, SIM_CHUNK, 0);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			return;
		if (n <= 0) {
			if (n < 0)
				input_error(p, "read", strerror(errno));
			else
				fprintf(stderr, "spoor-probe-sim: %s: the trace port closed\n",
					p->opt.input);
			close(in->fd);
			in->fd = -1;
			in->eof = true;
			return;
		}
		in->data = in->chunk;
		in->len = (size_t)n;
		return;
	case SIM_IN_RAW:
		n = read(in->fd, in->chunk, SIM_CHUNK);
		if (n < 0 && errno == EINTR)
			return;
		if (n < 0)
			input_error(p, "read", strerror(errno));
		in->eof = n <= 0;
		in->any |= n > 0;
		in->data = in->chunk;
		in->len = n > 0 ? (size_t)n : 0;
		return;
	case SIM_IN_CAPTURE:
		r = spoor_capture_reader_next(in->rd, &rec);
		if (r <= 0) {
			if (r < 0) {
				snprintf(what, sizeof(what), "a bad record at file offset %llu",
					 (unsigned long long)spoor_capture_reader_pos(in->rd));
				input_error(p, what, spoor_errstr(r));
			}
			in->eof = true;
			return;
		}
		/* Trace offsets with no record (a lost LOSS record) are lost too. */
		if (rec.type != SPOOR_CAPTURE_END && rec.offset > in->off)
			in->lost += rec.offset - in->off;
		if (rec.type == SPOOR_CAPTURE_DATA) {
			in->data = rec.payload;
			in->len = rec.len;
			in->any |= rec.len > 0;
			in->off = (rec.offset > in->off ? rec.offset : in->off) + rec.len;
		} else if (rec.type == SPOOR_CAPTURE_LOSS) {
			in->lost += rec.count;
			in->any |= rec.count > 0;
			in->off = (rec.offset > in->off ? rec.offset : in->off) + rec.count;
		} else {
			in->eof = true;
		}
		return;
	default:
		in->eof = true;
		return;
	}
}

/* Room for trace bytes in the buffer (none while every loss mark is in use). */
static size_t buffer_room(const struct spoor_fw *fw)
{
	if (fw->nmarks == SPOOR_FW_MARKS)
		return 0;
	return fw->size - (size_t)(fw->head - fw->tail);
}

/*
 * The port delivers up to @n bytes of @b at its next trace offset, at most
 * @room of them kept, with the injected loss (--drop-at) taking its bytes.
 * Returns the bytes of @b used (0: no room).  Under the lock.
 */
static size_t port_deliver(struct sim_probe *p, const uint8_t *b, size_t n, size_t room)
{
	uint64_t off = p->fw.captured, at = p->opt.drop_at;
	uint64_t end = at + p->opt.drop_count;

	if (p->opt.drop_count && off < end && off + n > at) {
		if (off >= at) {
			uint64_t d = end - off < n ? end - off : n;

			spoor_fw_trace_lost(&p->fw, d);
			return (size_t)d;
		}
		n = (size_t)(at - off);
	}
	if (n > room)
		n = room;
	spoor_fw_trace_in(&p->fw, b, n);
	return n;
}

/*
 * --rate: the bytes the port may deliver now (@want wanted); when too few,
 * waits until they are due (the lock released) and returns 0.
 */
static size_t pace(struct sim_probe *p, size_t want)
{
	struct sim_input *in = &p->in;
	double rate = (double)p->opt.rate, due, allowed, need, burst, wait;
	struct timespec now, ts;

	clock_gettime(CLOCK_MONOTONIC, &now);
	due = ((double)(now.tv_sec - in->t0.tv_sec) +
	       (double)(now.tv_nsec - in->t0.tv_nsec) * 1e-9) * rate;
	/* Wake-ups at most about a thousand a second; a late start is not made up beyond 50 ms. */
	need = rate / 1000 < 1 ? 1 : rate / 1000;
	if (need > (double)want)
		need = (double)want;
	burst = rate / 20 > need ? rate / 20 : need;
	if (due - in->paced > burst)
		in->paced = due - burst;
	allowed = due - in->paced;
	if (allowed >= need)
		return allowed > (double)SIM_CHUNK ? SIM_CHUNK : (size_t)allowed;
	wait = (need - allowed) / rate;
	ts = now;
	ts.tv_sec += (time_t)wait;
	ts.tv_nsec += (long)((wait - (double)(time_t)wait) * 1e9) + 1;
	while (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	pthread_cond_timedwait(&p->room, &p->lock, &ts);
	return 0;
}

/* Feeds what was read into the buffer while capturing, paced.  Under the lock; may wait. */
static void input_feed(struct sim_probe *p)
{
	struct sim_input *in = &p->in;
	size_t budget = SIZE_MAX, used = 0;

	if (p->opt.rate) {
		budget = pace(p, in->lost ? 1 : in->len);
		if (!budget)
			return;
	}
	if (in->lost) {
		spoor_fw_trace_lost(&p->fw, in->lost);
		in->lost = 0;
		notify(p);
		return;
	}
	while (in->len && budget) {
		size_t n = in->len < budget ? in->len : budget;
		size_t room = p->opt.rate ? SIZE_MAX : buffer_room(&p->fw);

		n = port_deliver(p, in->data, n, room);
		if (!n)
			break;
		in->data += n;
		in->len -= n;
		budget -= n;
		used += n;
	}
	in->paced += (double)used;
	if (used) {
		notify(p);
		return;
	}
	/* Lossless (rate 0): the buffer is full; wait for the host to drain it. */
	pthread_cond_wait(&p->room, &p->lock);
}

/* The trace port: feeds the buffer while capturing until halted. */
static void *input_thread(void *arg)
{
	struct sim_probe *p = arg;
	struct sim_input *in = &p->in;

	pthread_mutex_lock(&p->lock);
	while (!p->halt) {
		if (p->fw.state != SPOOR_PROBE_CAPTURING) {
			/* Idle: a real port's bytes go nowhere; a file waits for START. */
			if (in->kind == SIM_IN_TCP && in->fd >= 0) {
				in->len = 0;
				pthread_mutex_unlock(&p->lock);
				input_read(p);
				pthread_mutex_lock(&p->lock);
			} else {
				pthread_cond_wait(&p->room, &p->lock);
			}
			continue;
		}
		if (in->gen != p->gen) {
			in->gen = p->gen;
			pthread_mutex_unlock(&p->lock);
			input_restart(p, true);
			pthread_mutex_lock(&p->lock);
			continue;
		}
		if (!in->len && !in->lost) {
			if (in->eof && p->opt.loop && in->kind != SIM_IN_TCP && in->any) {
				/* --loop: the file again, its offsets after the last pass's. */
				pthread_mutex_unlock(&p->lock);
				input_restart(p, false);
				pthread_mutex_lock(&p->lock);
			} else if (in->eof) {
				/* The end of the input: the capture idles until STOP. */
				pthread_cond_wait(&p->room, &p->lock);
			} else {
				pthread_mutex_unlock(&p->lock);
				input_read(p);
				pthread_mutex_lock(&p->lock);
			}
			continue;
		}
		input_feed(p);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

/* Sets up the input named by the options; returns 0 or an error with @why. */
static int input_open(struct sim_probe *p, char *why, size_t size)
{
	struct sim_input *in = &p->in;
	const char *s = p->opt.input, *colon;
	struct spoor_diag diag;
	uint8_t magic[8];
	struct stat st;
	ssize_t n;

	in->fd = -1;
	if (!s)
		return 0;
	in->chunk = malloc(SIM_CHUNK);
	if (!in->chunk)
		return SPOOR_E_NOMEM;
	if (!strncmp(s, "tcp:", 4)) {
		colon = strrchr(s + 4, ':');
		if (!colon || colon == s + 4 || !colon[1] ||
		    (size_t)(colon - s - 4) >= sizeof(in->host) || strlen(colon + 1) >= sizeof(in->port))
			return failf(SPOOR_E_BAD_VALUE, why, size, "%s: %s", s,
				     "not tcp:HOST:PORT");
		memcpy(in->host, s + 4, (size_t)(colon - s - 4));
		in->host[colon - s - 4] = 0;
		/* [::1]:PORT */
		if (in->host[0] == '[' && in->host[strlen(in->host) - 1] == ']') {
			memmove(in->host, in->host + 1, strlen(in->host));
			in->host[strlen(in->host) - 1] = 0;
		}
		strcpy(in->port, colon + 1);
		in->kind = SIM_IN_TCP;
		return 0;
	}
	in->fd = open(s, O_RDONLY | O_CLOEXEC);
	if (in->fd < 0 || fstat(in->fd, &st))
		return failf(SPOOR_E_IO, why, size, "%s: %s", s, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return failf(SPOOR_E_NOT_REGULAR, why, size, "%s: %s", s, "not a regular file");
	n = pread(in->fd, magic, sizeof(magic), 0);
	if (n == (ssize_t)sizeof(magic) && !memcmp(magic, SPOOR_CAPTURE_MAGIC, sizeof(magic))) {
		int r = spoor_capture_reader_open(s, &in->rd, &diag);

		if (r < 0)
			return failf(r, why, size, "%s%s", diag.msg, "");
		close(in->fd);
		in->fd = -1;
		in->kind = SIM_IN_CAPTURE;
	} else {
		in->kind = SIM_IN_RAW;
	}
	return 0;
}

/* ---- the model ------------------------------------------------------------------------ */

int sim_probe_new(const struct sim_options *opt, struct sim_probe **out, char *why, size_t why_size)
{
	struct sim_probe *p;
	pthread_condattr_t ca;
	size_t n;
	int err;

	if (!opt || !out)
		return SPOOR_E_INVAL;
	*out = NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return SPOOR_E_NOMEM;
	p->opt = *opt;
	p->flash_fd = -1;
	p->efd = -1;
	p->in.fd = -1;
	if (!p->opt.serial)
		p->opt.serial = "SIM0001";
	if (!p->opt.buffer_size)
		p->opt.buffer_size = SIM_DEFAULT_BUFFER;
	n = strlen(p->opt.serial);
	err = SPOOR_E_BAD_VALUE;
	if (!n || n > SPOOR_PROBE_SERIAL_MAX) {
		failf(err, why, why_size, "serial '%s': %s", p->opt.serial, "1 to 32 characters");
		goto fail;
	}
	for (size_t i = 0; i < n; i++) {
		if (p->opt.serial[i] < 0x20 || p->opt.serial[i] > 0x7e) {
			failf(err, why, why_size, "serial: %s%s", "printable ASCII only", "");
			goto fail;
		}
	}
	memcpy(p->serial, p->opt.serial, n);
	if (p->opt.buffer_size < 64 || p->opt.buffer_size > SIM_MAX_BUFFER ||
	    (p->opt.buffer_size & (p->opt.buffer_size - 1))) {
		failf(err, why, why_size, "buffer size: %s%s", "a power of two from 64 to 1G", "");
		goto fail;
	}
	if (p->opt.drop_at + p->opt.drop_count < p->opt.drop_at) {
		failf(err, why, why_size, "drop: %s%s", "offset and count too large", "");
		goto fail;
	}
	err = SPOOR_E_NOMEM;
	p->buf = malloc(p->opt.buffer_size);
	if (!p->buf)
		goto fail;
	err = SPOOR_E_IO;
	p->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (p->efd < 0) {
		failf(err, why, why_size, "eventfd: %s%s", strerror(errno), "");
		goto fail;
	}
	pthread_mutex_init(&p->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&p->room, &ca);
	pthread_cond_init(&p->fed, &ca);
	pthread_condattr_destroy(&ca);
	err = flash_open(p, why, why_size);
	if (err)
		goto fail;
	err = boot(p);
	if (err) {
		failf(err, why, why_size, "%s: %s", opt->flash_path ? opt->flash_path : "flash",
		      "no firmware image in either slot checks");
		goto fail;
	}
	p->flash = (struct spoor_fw_flash){
		.slot_size = SIM_SLOT_SIZE, .erase = f_erase, .write = f_write, .read = f_read,
		.commit = f_commit, .active = f_active, .ctx = p,
	};
	fw_start(p);
	err = input_open(p, why, why_size);
	if (err)
		goto fail;
	*out = p;
	return 0;
fail:
	sim_probe_free(p);
	return err;
}

void sim_probe_free(struct sim_probe *p)
{
	if (!p)
		return;
	sim_probe_halt(p);
	if (p->in.fd >= 0)
		close(p->in.fd);
	spoor_capture_reader_close(p->in.rd);
	free(p->in.chunk);
	if (p->flash_fd >= 0) {
		if (p->mem)
			munmap(p->mem, SIM_FLASH_SIZE);
		close(p->flash_fd);
	} else {
		free(p->mem);
	}
	if (p->efd >= 0) {
		close(p->efd);
		pthread_cond_destroy(&p->room);
		pthread_cond_destroy(&p->fed);
		pthread_mutex_destroy(&p->lock);
	}
	free(p->buf);
	free(p);
}

int sim_probe_run(struct sim_probe *p)
{
	sigset_t all, old;
	int r;

	if (!p)
		return SPOOR_E_INVAL;
	if (p->started || p->in.kind == SIM_IN_NONE)
		return 0;
	/* Signals go to the front's thread, never to the trace port's. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	p->halt = false;
	r = pthread_create(&p->thread, NULL, input_thread, p);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r)
		return SPOOR_E_NOMEM;
	p->started = true;
	return 0;
}

void sim_probe_halt(struct sim_probe *p)
{
	if (!p || !p->started)
		return;
	pthread_mutex_lock(&p->lock);
	p->halt = true;
	pthread_cond_broadcast(&p->room);
	pthread_mutex_unlock(&p->lock);
	pthread_join(p->thread, NULL);
	p->started = false;
}

/* Is @s a vendor request to interface 0 of the right direction for its bRequest? */
static bool vendor_ok(const struct spoor_probe_setup *s)
{
	bool in = s->request == SPOOR_PROBE_GET_INFO || s->request == SPOOR_PROBE_GET_STATUS;

	return s->index == SPOOR_PROBE_IF_TRACE &&
	       s->request_type == (in ? SPOOR_PROBE_REQTYPE_IN : SPOOR_PROBE_REQTYPE_OUT);
}

/*
 * Is @s a DFU class request to the DFU interface, of the right direction?
 * In DFU mode the DFU interface is the device's only one: wIndex 0 or 1.
 */
static bool dfu_ok(const struct sim_probe *p, const struct spoor_probe_setup *s)
{
	bool in = s->request == SPOOR_DFU_UPLOAD || s->request == SPOOR_DFU_GETSTATUS ||
		  s->request == SPOOR_DFU_GETSTATE;

	if (s->index != SPOOR_PROBE_IF_DFU && !(p->dfu_mode && s->index == 0))
		return false;
	return s->request_type == (in ? SPOOR_PROBE_DFU_REQTYPE_IN : SPOOR_PROBE_DFU_REQTYPE_OUT);
}

int sim_probe_control(struct sim_probe *p, const struct spoor_probe_setup *setup, uint8_t *data)
{
	int r = -1;

	if (!p || !setup || (setup->length && !data))
		return -1;
	pthread_mutex_lock(&p->lock);
	if ((setup->request_type & 0x60) == 0x40) {
		/* Vendor requests: the trace interface, at run time only. */
		if (!p->dfu_mode && vendor_ok(setup)) {
			r = spoor_fw_control(&p->fw, setup->request, data, setup->length);
			if (r >= 0 && setup->request == SPOOR_PROBE_START)
				p->gen++;
			if (r >= 0 && (setup->request == SPOOR_PROBE_START ||
				       setup->request == SPOOR_PROBE_STOP)) {
				pthread_cond_broadcast(&p->room);
				notify(p);
			}
		}
	} else if ((setup->request_type & 0x60) == 0x20 && dfu_ok(p, setup)) {
		r = spoor_fw_dfu_request(&p->dfu, setup->request, setup->value, data,
					 setup->length);
	}
	pthread_mutex_unlock(&p->lock);
	if (r > (int)setup->length)
		r = -1;
	return r;
}

size_t sim_probe_bulk_in(struct sim_probe *p, uint8_t *buf, size_t max)
{
	size_t n = 0;

	if (!p || !buf)
		return 0;
	pthread_mutex_lock(&p->lock);
	if (!p->dfu_mode)
		n = spoor_fw_bulk_in(&p->fw, buf, max);
	if (n)
		pthread_cond_broadcast(&p->room);
	else
		clear_event(p);
	pthread_mutex_unlock(&p->lock);
	return n;
}

size_t sim_probe_raw_in(struct sim_probe *p, uint8_t *buf, size_t max)
{
	struct spoor_fw *fw;
	size_t n = 0;

	if (!p || !buf)
		return 0;
	pthread_mutex_lock(&p->lock);
	fw = &p->fw;
	while (!p->dfu_mode && n < max) {
		uint64_t limit;
		size_t k, at, first;

		/* A FIFO has no way to tell of a loss: the bytes just go on after it. */
		while (fw->nmarks && fw->marks[0].at == fw->tail)
			memmove(fw->marks, fw->marks + 1, --fw->nmarks * sizeof(*fw->marks));
		limit = (fw->nmarks ? fw->marks[0].at : fw->head) - fw->tail;
		if (!limit)
			break;
		k = limit < max - n ? (size_t)limit : max - n;
		at = (size_t)(fw->tail & (fw->size - 1));
		first = k < fw->size - at ? k : fw->size - at;
		memcpy(buf + n, fw->buf + at, first);
		memcpy(buf + n + first, fw->buf, k - first);
		fw->tail += k;
		n += k;
	}
	if (fw->end_due && !fw->nmarks && fw->head == fw->tail) {
		fw->end_due = false;
		fw->state = SPOOR_PROBE_IDLE;
	}
	if (n)
		pthread_cond_broadcast(&p->room);
	else
		clear_event(p);
	pthread_mutex_unlock(&p->lock);
	return n;
}

bool sim_probe_wait(struct sim_probe *p, int timeout_ms)
{
	struct timespec ts;
	bool there;

	if (!p)
		return false;
	deadline(&ts, timeout_ms > 0 ? timeout_ms : 0);
	pthread_mutex_lock(&p->lock);
	while (!has_bulk(&p->fw) && !p->dfu_mode) {
		if (timeout_ms >= 0 ?
		    pthread_cond_timedwait(&p->fed, &p->lock, &ts) == ETIMEDOUT :
		    pthread_cond_wait(&p->fed, &p->lock) != 0)
			break;
	}
	there = !p->dfu_mode && has_bulk(&p->fw);
	pthread_mutex_unlock(&p->lock);
	return there;
}

bool sim_probe_dfu_mode(struct sim_probe *p)
{
	bool m;

	if (!p)
		return false;
	pthread_mutex_lock(&p->lock);
	m = p->dfu_mode;
	pthread_mutex_unlock(&p->lock);
	return m;
}

void sim_probe_reset(struct sim_probe *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	if (p->dfu_mode)
		p->dfu_mode = false;
	else if (p->dfu.detach)
		p->dfu_mode = true;
	/* A reboot: the image committed last runs (the one running if none checks). */
	if (boot(p))
		fprintf(stderr, "spoor-probe-sim: no firmware image in flash checks; "
			"slot %u keeps running\n", p->running);
	fw_start(p);
	p->gen++;
	pthread_cond_broadcast(&p->room);
	notify(p);
	pthread_mutex_unlock(&p->lock);
}

void sim_probe_info(struct sim_probe *p, struct spoor_probe_info *info)
{
	if (!p || !info)
		return;
	pthread_mutex_lock(&p->lock);
	*info = p->fw.info;
	pthread_mutex_unlock(&p->lock);
}

int sim_probe_event_fd(struct sim_probe *p)
{
	return p ? p->efd : -1;
}

unsigned sim_probe_input_errors(struct sim_probe *p)
{
	unsigned n;

	if (!p)
		return 0;
	pthread_mutex_lock(&p->lock);
	n = p->input_errors;
	pthread_mutex_unlock(&p->lock);
	return n;
}
