// SPDX-License-Identifier: MIT
/*
 * spoor gdbserver: the sessions.  One GDB connection at a time; in proxy
 * mode each has its own connection to OpenOCD's GDB port.  Packets GDB
 * sends are answered here when they concern branch trace (Qbtrace*,
 * qXfer:btrace*, "monitor trace ...") and forwarded unchanged otherwise;
 * OpenOCD's packets go back unchanged but for two: the qSupported reply
 * (spoor's features appended) and stop replies, held until the trace of
 * the run that just ended has been decoded.  The two links keep their own
 * acknowledgements.  In replay mode there is no OpenOCD: the target is the
 * capture, stopped at its last traced pc.
 */
#define _GNU_SOURCE /* accept4 */
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <arpa/inet.h>
#include <unistd.h>

#include "btrace.h"
#include "conn.h"
#include "gdbserver.h"
#include "spoor/error.h"
#include "spoor/insn.h"
#include "state.h"
#include "target.h"

#define MAX_PACKET 0x10000	/* longest body accepted from either peer */
#define UP_TIMEOUT_MS 5000	/* longest wait for OpenOCD's answer to spoor's own request */
#define MAX_READERS 64		/* harts whose btrace readers a session keeps */
#define MEM_CHUNK 0x800		/* bytes per m packet spoor sends */

/* Trace Control Interface registers (offsets from trace_base). */
#define TE_CONTROL 0x000
#define TE_FEATURES 0x008
#define RAM_CONTROL 0x1000
#define RAM_START 0x1010
#define RAM_LIMIT 0x1018
#define RAM_WP 0x1020
#define PIB_CONTROL 0x2000
#define TE_ON 0x00400007u	/* active, enable, instruction tracing, sync every 2^8 packets */
#define TE_ENABLED 0x6u
#define SINK_ON 0x3u
#define RAM_SMEM_ON 0x13u

static volatile sig_atomic_t quit;

static void on_signal(int sig)
{
	(void)sig;
	quit = 1;
}

struct server {
	const struct spoor_gdbserver_config *cfg;
	struct gs_state st;
	struct gs_memory mem;		/* replay: the ELF files */
	bool replay;
	pid_t openocd_pid;
	char openocd_addr[64];
	char openocd_log[256];		/* its output, while it runs */
	bool recording_hw;		/* spoor turned tracing on through OpenOCD */
};

struct session {
	struct server *srv;
	struct gs_conn gdb, up;
	bool proxy;
	int64_t gthread;		/* Hg: the thread GDB names, <= 0: any */
	bool fwd_qsupported;		/* a forwarded qSupported awaits its reply */
	bool fwd_noack;			/* a forwarded QStartNoAckMode awaits its reply */
	bool running;			/* a forwarded resume awaits its stop reply */
	uint64_t stops_at_resume;
	bool always_on;			/* tracing was on at connect */
	struct gs_btrace_reader readers[MAX_READERS];
	/* The qXfer document being read in pieces. */
	char doc_key[160];
	struct gs_text doc;
	char *reply;			/* scratch for replies */
	size_t reply_cap;
};

/* ---- helpers -------------------------------------------------------------- */

/* Returns true when @s starts with @prefix. */
static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* Sends an error reply "E.text" (GDB shows the text). */
static int send_error(struct session *ss, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int send_error(struct session *ss, const char *fmt, ...)
{
	char msg[512] = "E.";
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg + 2, sizeof(msg) - 2, fmt, ap);
	va_end(ap);
	return gs_conn_send_str(&ss->gdb, msg);
}

/* Parses a hex number of @s up to a char of @stops (or the end); returns false if none. */
static bool hexnum(const char *s, const char **end, uint64_t *v)
{
	char *e;

	errno = 0;
	*v = strtoull(s, &e, 16);
	if (e == s || errno)
		return false;
	if (end)
		*end = e;
	return true;
}

/* Little-endian hex of the low @bytes bytes of @v. */
static void hex_le(uint64_t v, unsigned bytes, char *out)
{
	uint8_t b[8];

	for (unsigned i = 0; i < bytes; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	spoor_rsp_hex(b, bytes, out);
	out[2 * bytes] = '\0';
}

/* The source (hart) whose history thread @tid shows. */
static uint32_t source_of(struct session *ss, int64_t tid)
{
	struct server *srv = ss->srv;
	struct spoor_history_info info;

	if (tid <= 0)
		tid = ss->gthread;
	if (tid > 0 && srv->replay)
		return (uint32_t)(tid - 1);
	if (tid > 0) {
		/* A hart the trace has seen; the reader thread may be adding to it. */
		pthread_mutex_lock(&srv->st.lock);
		spoor_history_info(srv->st.hist, (uint32_t)(tid - 1), &info, sizeof(info));
		pthread_mutex_unlock(&srv->st.lock);
		if (info.next)
			return (uint32_t)(tid - 1);
	}
	return srv->cfg->default_source;
}

/* The reader of @source's history (NULL beyond MAX_READERS). */
static struct gs_btrace_reader *reader_of(struct session *ss, uint32_t source)
{
	return source < MAX_READERS ? &ss->readers[source] : NULL;
}

/* ---- OpenOCD: spoor's own requests ---------------------------------------- */

/*
 * Sends @req to OpenOCD and waits for its reply (console output skipped)
 * into @reply (NUL-terminated).  Returns the reply's length or an error.
 */
static int up_call(struct session *ss, const char *req, char *reply, size_t room)
{
	struct spoor_rsp_item it;
	int k;

	if (gs_conn_send_str(&ss->up, req))
		return SPOOR_E_IO;
	for (;;) {
		k = gs_conn_next(&ss->up, &it, UP_TIMEOUT_MS);
		if (k < 0)
			return k;
		if (k == 0)
			return SPOOR_E_TIMEOUT;
		if (k != SPOOR_RSP_PACKET)
			continue;
		if (it.len > 1 && it.data[0] == 'O' && strcmp((const char *)it.data, "OK"))
			continue;	/* console output */
		if (it.len >= room)
			return SPOOR_E_NOSPACE;
		memcpy(reply, it.data, it.len + 1);
		return (int)it.len;
	}
}

/* Reads @len bytes of target memory at @addr through OpenOCD.  Returns 0 or an error. */
static int up_read_mem(struct session *ss, uint64_t addr, size_t len, uint8_t *out)
{
	char req[64], *reply = malloc(2 * MEM_CHUNK + 16);
	int n, ret = 0;

	if (!reply)
		return SPOOR_E_NOMEM;
	while (len && !ret) {
		size_t k = len < MEM_CHUNK ? len : MEM_CHUNK;

		snprintf(req, sizeof(req), "m%" PRIx64 ",%zx", addr, k);
		n = up_call(ss, req, reply, 2 * MEM_CHUNK + 16);
		if (n < 0)
			ret = n;
		else if ((size_t)n != 2 * k || reply[0] == 'E')
			ret = SPOOR_E_ACCESS;
		else if (spoor_rsp_unhex(reply, (size_t)n, out, k) != (int)k)
			ret = SPOOR_E_PROTOCOL;
		addr += k;
		out += k;
		len -= k;
	}
	free(reply);
	return ret;
}

/* Reads a 32-bit register at @addr.  Returns 0 or an error. */
static int up_read32(struct session *ss, uint64_t addr, uint32_t *v)
{
	uint8_t b[4];
	int ret = up_read_mem(ss, addr, 4, b);

	if (!ret)
		*v = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
		     (uint32_t)b[3] << 24;
	return ret;
}

/* Writes a 32-bit register at @addr.  Returns 0 or an error. */
static int up_write32(struct session *ss, uint64_t addr, uint32_t v)
{
	char req[64], hex[9], reply[64];
	int n;

	hex_le(v, 4, hex);
	snprintf(req, sizeof(req), "M%" PRIx64 ",4:%s", addr, hex);
	n = up_call(ss, req, reply, sizeof(reply));
	if (n < 0)
		return n;
	return strcmp(reply, "OK") ? SPOOR_E_ACCESS : 0;
}

/* The current pc through OpenOCD (register GS_REG_PC).  Returns 0 or an error. */
static int up_pc(struct session *ss, uint64_t *pc)
{
	char req[16], reply[64];
	uint8_t b[8];
	int n;

	snprintf(req, sizeof(req), "p%x", GS_REG_PC);
	n = up_call(ss, req, reply, sizeof(reply));
	if (n < 0)
		return n;
	if (n != 8 && n != 16)
		return SPOOR_E_PROTOCOL;
	if (spoor_rsp_unhex(reply, (size_t)n, b, sizeof(b)) != n / 2)
		return SPOOR_E_PROTOCOL;
	*pc = 0;
	for (int i = n / 2 - 1; i >= 0; i--)
		*pc = *pc << 8 | b[i];
	return 0;
}

/* ---- trace control through OpenOCD ---------------------------------------- */

/* Is the encoder on (trTeControl)?  Returns 1, 0 or an error. */
static int hw_tracing(struct session *ss)
{
	uint32_t ctl;
	int ret = up_read32(ss, ss->srv->cfg->trace_base + TE_CONTROL, &ctl);

	return ret ? ret : (ctl & TE_ENABLED) == TE_ENABLED;
}

/*
 * Turns tracing on (the sink of the source, then the encoder with the
 * board's options) or off.  Returns 0 or an error.
 */
static int hw_trace(struct session *ss, bool on)
{
	const struct spoor_gdbserver_config *cfg = ss->srv->cfg;
	uint64_t base = cfg->trace_base;
	int ret;

	if (!on)
		return up_write32(ss, base + TE_CONTROL, 1);	/* active: flushes the trace */
	if (cfg->source == SPOOR_GS_SRC_RAM) {
		uint64_t start = cfg->ram_start, limit = cfg->ram_start + cfg->ram_size - 4;

		ret = up_write32(ss, base + RAM_START, (uint32_t)start);
		ret = ret ? ret : up_write32(ss, base + RAM_START + 4, (uint32_t)(start >> 32));
		ret = ret ? ret : up_write32(ss, base + RAM_LIMIT, (uint32_t)limit);
		ret = ret ? ret : up_write32(ss, base + RAM_LIMIT + 4, (uint32_t)(limit >> 32));
		ret = ret ? ret : up_write32(ss, base + RAM_WP, (uint32_t)start);
		ret = ret ? ret : up_write32(ss, base + RAM_WP + 4, (uint32_t)(start >> 32));
		ret = ret ? ret : up_write32(ss, base + RAM_CONTROL, RAM_SMEM_ON);
	} else {
		ret = up_write32(ss, base + PIB_CONTROL, SINK_ON);
	}
	ret = ret ? ret : up_write32(ss, base + TE_FEATURES, cfg->te_features);
	ret = ret ? ret : up_write32(ss, base + TE_CONTROL, TE_ON);
	if (!ret)
		ss->srv->recording_hw = true;
	return ret;
}

/* Reads a 64-bit register pair (low word at @addr).  Returns 0 or an error. */
static int up_read64(struct session *ss, uint64_t addr, uint64_t *v)
{
	uint32_t lo, hi;
	int ret = up_read32(ss, addr, &lo);

	ret = ret ? ret : up_read32(ss, addr + 4, &hi);
	if (!ret)
		*v = (uint64_t)hi << 32 | lo;
	return ret;
}

/* Reads [@from, @to) of target memory into the pipeline.  Returns 0 or an error. */
static int ram_feed(struct session *ss, uint64_t from, uint64_t to)
{
	size_t len = (size_t)(to - from);
	uint8_t *buf;
	int ret;

	if (!len)
		return 0;
	buf = malloc(len);
	if (!buf)
		return SPOOR_E_NOMEM;
	ret = up_read_mem(ss, from, len, buf);
	if (!ret)
		ret = gs_state_feed(&ss->srv->st, buf, len);
	free(buf);
	return ret;
}

/*
 * The RAM sink's bytes since the last stop, read through OpenOCD while the
 * target is halted, into the pipeline (oldest first; after a wrap, from the
 * write pointer on, the overwritten trace reported as lost); then the
 * write pointer goes back to the buffer's start.  The buffer is the one the
 * sink's registers give, whoever set them.  Returns 0 or an error.
 */
static int ram_collect(struct session *ss)
{
	uint64_t base = ss->srv->cfg->trace_base, start, limit, wp;
	int ret;

	ret = up_read64(ss, base + RAM_START, &start);
	ret = ret ? ret : up_read64(ss, base + RAM_LIMIT, &limit);
	ret = ret ? ret : up_read64(ss, base + RAM_WP, &wp);
	if (ret)
		return ret;
	start &= ~UINT64_C(3);
	limit = (limit & ~UINT64_C(3)) + 4;	/* the last word is written too */
	if (limit <= start || limit - start > (256u << 20) || (wp & ~UINT64_C(3)) < start ||
	    (wp & ~UINT64_C(3)) > limit)
		return SPOOR_E_RANGE;
	if (wp & 1) {
		fprintf(stderr, "spoor gdbserver: the RAM sink wrapped: older trace lost\n");
		pthread_mutex_lock(&ss->srv->st.lock);
		ss->srv->st.gaps++;
		spoor_history_gap(ss->srv->st.hist, ss->srv->cfg->default_source);
		pthread_mutex_unlock(&ss->srv->st.lock);
		ret = ram_feed(ss, wp & ~UINT64_C(3), limit);
		if (ret)
			return ret;
	}
	ret = ram_feed(ss, start, wp & ~UINT64_C(3));
	ret = ret ? ret : up_write32(ss, base + RAM_WP, (uint32_t)start);
	return ret ? ret : up_write32(ss, base + RAM_WP + 4, (uint32_t)(start >> 32));
}

/* True when any of the session's readers records. */
static bool recording(const struct session *ss)
{
	if (ss->always_on)
		return true;
	for (int i = 0; i < MAX_READERS; i++)
		if (ss->readers[i].enabled)
			return true;
	return false;
}

/*
 * The target stopped: the trace of the run must be in the history before
 * GDB hears of the stop.  A time-out is reported as a gap, never a hang.
 */
static void sync_stop(struct session *ss)
{
	struct server *srv = ss->srv;
	int ret;

	if (!ss->running || !recording(ss))
		return;
	if (srv->cfg->source == SPOOR_GS_SRC_RAM) {
		ret = ram_collect(ss);
		if (ret)
			fprintf(stderr, "spoor gdbserver: reading the RAM sink through OpenOCD: %s\n",
				spoor_errstr(ret));
	} else if ((srv->cfg->source == SPOOR_GS_SRC_TCP ||
		    srv->cfg->source == SPOOR_GS_SRC_PROBE) &&
		   !gs_state_wait_stops(&srv->st, ss->stops_at_resume, srv->cfg->stop_timeout_ms)) {
		fprintf(stderr, "spoor gdbserver: the trace did not report the halt within %d ms: "
			"a gap in the history\n", srv->cfg->stop_timeout_ms);
		pthread_mutex_lock(&srv->st.lock);
		srv->st.gaps++;
		spoor_history_gap(srv->st.hist, srv->cfg->default_source);
		pthread_mutex_unlock(&srv->st.lock);
	}
}

/* ---- replies from documents (qXfer) --------------------------------------- */

/* Sends the qXfer reply for @off,@len of the document in ss->doc. */
static int send_piece(struct session *ss, uint64_t off, uint64_t len)
{
	size_t total = ss->doc.len, n;

	if (off >= total)
		return gs_conn_send_str(&ss->gdb, "l");
	n = total - off < len ? total - (size_t)off : (size_t)len;
	if (n + 2 > ss->reply_cap) {
		char *r = realloc(ss->reply, n + 2);

		if (!r)
			return send_error(ss, "out of memory");
		ss->reply = r;
		ss->reply_cap = n + 2;
	}
	ss->reply[0] = off + n < total ? 'm' : 'l';
	memcpy(ss->reply + 1, ss->doc.s + off, n);
	return gs_conn_send(&ss->gdb, ss->reply, n + 1);
}

/* The pc of @source: the target's (proxy) or the end of the capture (replay). */
static int current_pc(struct session *ss, uint32_t source, uint64_t *pc)
{
	struct spoor_history_info info;
	const struct spoor_block *b;

	if (ss->proxy)
		return up_pc(ss, pc);
	spoor_history_info(ss->srv->st.hist, source, &info, sizeof(info));
	b = info.next ? spoor_history_block(ss->srv->st.hist, source, info.next - 1) : NULL;
	if (!b)
		return SPOOR_E_NOT_FOUND;
	*pc = b->next ? b->next : b->last + b->last_len;
	return 0;
}

/* Writes the threads document (replay: a thread per hart). */
static void threads_xml(struct session *ss, struct gs_text *out)
{
	uint32_t ids[256];
	size_t n = spoor_history_sources(ss->srv->st.hist, ids, 256);

	gs_text_add(out, "<?xml version=\"1.0\"?>\n<threads>\n");
	for (size_t i = 0; i < n && i < 256; i++)
		gs_text_add(out, "<thread id=\"%" PRIx32 "\" core=\"%" PRIu32 "\" name=\"hart %"
			    PRIu32 "\"/>\n", ids[i] + 1, ids[i], ids[i]);
	gs_text_add(out, "</threads>\n");
}

/*
 * qXfer:OBJECT:read:ANNEX:OFF,LEN for the objects served here (btrace,
 * btrace-conf; in replay also features and threads).  Returns 1 when
 * handled (reply sent), 0 when not ours, or an error.
 */
static int handle_qxfer(struct session *ss, const char *pkt)
{
	struct server *srv = ss->srv;
	char object[32], annex[64], key[160];
	const char *p = pkt + strlen("qXfer:"), *colon;
	uint64_t off, len;
	uint32_t source;
	int ret = 0;

	colon = strchr(p, ':');
	if (!colon || (size_t)(colon - p) >= sizeof(object))
		return 0;
	memcpy(object, p, (size_t)(colon - p));
	object[colon - p] = '\0';
	if (strcmp(object, "btrace") && strcmp(object, "btrace-conf") &&
	    (ss->proxy || (strcmp(object, "features") && strcmp(object, "threads"))))
		return 0;
	p = colon + 1;
	if (!starts(p, "read:"))
		return send_error(ss, "spoor: only reads of %s", object) ? -1 : 1;
	p += 5;
	colon = strchr(p, ':');
	if (!colon || (size_t)(colon - p) >= sizeof(annex))
		return send_error(ss, "spoor: malformed qXfer request") ? -1 : 1;
	memcpy(annex, p, (size_t)(colon - p));
	annex[colon - p] = '\0';
	if (!hexnum(colon + 1, &p, &off) || *p != ',' || !hexnum(p + 1, &p, &len) || *p)
		return send_error(ss, "spoor: malformed qXfer request") ? -1 : 1;
	source = source_of(ss, -1);
	snprintf(key, sizeof(key), "%s:%s:%" PRIu32, object, annex, source);
	if (off == 0 || strcmp(key, ss->doc_key)) {
		/* A new read: build the document once, serve it in pieces. */
		gs_text_free(&ss->doc);
		ss->doc_key[0] = '\0';
		if (!strcmp(object, "btrace")) {
			struct gs_btrace_reader *r = reader_of(ss, source), all = { 0 };
			enum gs_btrace_annex an;
			const char *why = "";
			uint64_t pc;

			if (!gs_btrace_annex(annex, &an))
				return send_error(ss, "spoor: unknown btrace annex '%s'", annex) ? -1 : 1;
			if (!r)
				r = &all;
			if (!recording(ss) && !r->enabled)
				return send_error(ss, "spoor: not recording") ? -1 : 1;
			ret = current_pc(ss, source, &pc);
			if (ret)
				return send_error(ss, "spoor: cannot read the pc: %s",
						  spoor_errstr(ret)) ? -1 : 1;
			pthread_mutex_lock(&srv->st.lock);
			ret = gs_btrace_read(srv->st.hist, source, an, pc, r, &ss->doc, &why);
			pthread_mutex_unlock(&srv->st.lock);
			if (ret == SPOOR_E_TRACE)
				return send_error(ss, "spoor: no delta: %s", why) ? -1 : 1;
		} else if (!strcmp(object, "btrace-conf")) {
			struct gs_btrace_reader *r = reader_of(ss, source);

			gs_btrace_conf(recording(ss) || (r && r->enabled),
				       (uint64_t)spoor_history_size(srv->st.hist) *
				       GS_BTS_BYTES_PER_BLOCK, &ss->doc);
		} else if (!strcmp(object, "features")) {
			if (strcmp(annex, "target.xml"))
				return send_error(ss, "spoor: no document %s", annex) ? -1 : 1;
			gs_target_xml(srv->cfg->xlen, &ss->doc);
		} else {
			pthread_mutex_lock(&srv->st.lock);
			threads_xml(ss, &ss->doc);
			pthread_mutex_unlock(&srv->st.lock);
		}
		if (ss->doc.failed || ret)
			return send_error(ss, "spoor: out of memory") ? -1 : 1;
		snprintf(ss->doc_key, sizeof(ss->doc_key), "%s", key);
	}
	return send_piece(ss, off, len) ? -1 : 1;
}

/* ---- monitor trace ... ----------------------------------------------------- */

/* Sends @text as console output (O packets), in pieces. */
static int console(struct session *ss, const char *text)
{
	size_t len = strlen(text);
	char buf[2 * 1024 + 2];

	while (len) {
		size_t k = len < 1024 ? len : 1024;

		buf[0] = 'O';
		spoor_rsp_hex(text, k, buf + 1);
		if (gs_conn_send(&ss->gdb, buf, 1 + 2 * k))
			return SPOOR_E_IO;
		text += k;
		len -= k;
	}
	return 0;
}

/* The symbol name of @addr, or its hex value in @buf. */
static const char *sym_name(const struct server *srv, uint64_t addr, char *buf, size_t size)
{
	const char *name;
	uint64_t off;

	if (!spoor_image_symbol(srv->cfg->trace.image, addr, &name, &off)) {
		if (!off)
			return name;
		snprintf(buf, size, "%s+0x%" PRIx64, name, off);
		return buf;
	}
	snprintf(buf, size, "0x%" PRIx64, addr);
	return buf;
}

/* The class of the instruction at @addr (its flags in *@flags). */
static int insn_at(const struct server *srv, uint64_t addr, uint8_t *flags)
{
	size_t avail;
	const uint8_t *p = spoor_image_ptr(srv->cfg->trace.image, addr, &avail);
	struct spoor_insn in;
	uint32_t raw;

	*flags = 0;
	if (!p || avail < 2)
		return SPOOR_INSN_INVALID;
	raw = (uint32_t)p[0] | (uint32_t)p[1] << 8;
	if (avail >= 4)
		raw |= (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
	spoor_insn_decode(raw, srv->cfg->xlen, &in);
	*flags = in.flags;
	return in.cls;
}

/*
 * The call tree of @source's history: one line per call, indented by
 * depth, repeated calls of one function folded ("name x N"), traps marked.
 */
static void call_tree(struct session *ss, uint32_t source, struct gs_text *out)
{
	struct server *srv = ss->srv;
	struct spoor_history_info info;
	char prev[160] = "", line[200], nb[96];
	unsigned depth = 0, prev_depth = 0, repeat = 0, lines = 0;

	spoor_history_info(srv->st.hist, source, &info, sizeof(info));
	for (uint64_t s = info.first; s < info.next && lines < 2000; s++) {
		const struct spoor_block *b = spoor_history_block(srv->st.hist, source, s);
		const struct spoor_block *nx = spoor_history_block(srv->st.hist, source, s + 1);
		uint8_t flags;
		int cls = insn_at(srv, b->last, &flags);

		line[0] = '\0';
		if (b->end == SPOOR_BLK_TRAP || b->end == SPOOR_BLK_ECALL) {
			snprintf(line, sizeof(line), "%*s<trap> after %s", 2 * depth, "",
				 sym_name(srv, b->last, nb, sizeof(nb)));
		} else if ((cls == SPOOR_INSN_JUMP || cls == SPOOR_INSN_JALR) &&
			   (flags & SPOOR_INSN_CALL) && nx) {
			snprintf(line, sizeof(line), "%*s%s", 2 * depth, "",
				 sym_name(srv, nx->start, nb, sizeof(nb)));
			depth = depth < 256 ? depth + 1 : depth;
		} else if ((flags & SPOOR_INSN_RETURN) && depth) {
			depth--;
		}
		if (!line[0])
			continue;
		if (!strcmp(line, prev) && prev_depth == depth) {
			repeat++;
			continue;
		}
		if (prev[0]) {
			gs_text_add(out, repeat ? "%s  x %u\n" : "%s\n", prev, repeat + 1);
			lines++;
		}
		snprintf(prev, sizeof(prev), "%s", line);
		prev_depth = depth;
		repeat = 0;
	}
	if (prev[0])
		gs_text_add(out, repeat ? "%s  x %u\n" : "%s\n", prev, repeat + 1);
	if (!info.next)
		gs_text_add(out, "(no history for hart %" PRIu32 ")\n", source);
}

/* "monitor trace ..." (@cmd after "trace"); replies and returns 0 or an error. */
static int monitor_trace(struct session *ss, const char *cmd)
{
	struct server *srv = ss->srv;
	const struct spoor_gdbserver_config *cfg = srv->cfg;
	struct gs_text out = { 0 };
	uint32_t source = source_of(ss, -1);
	int ret = 0;

	while (*cmd == ' ')
		cmd++;
	if (!*cmd || !strcmp(cmd, "status")) {
		static const char *const names[] = {
			"none", "trace port", "RAM sink", "capture", "probe",
		};
		const char *what = cfg->trace_port ? cfg->trace_port : cfg->replay ? cfg->replay :
				   cfg->probe ? cfg->probe : NULL;
		struct spoor_trace_stats ts;
		struct spoor_history_info hi;
		uint32_t ids[64];
		size_t n;

		pthread_mutex_lock(&srv->st.lock);
		spoor_trace_stats(srv->st.trace, &ts, sizeof(ts));
		gs_text_add(&out, "source: %s%s%s%s%s%s\nbytes: %" PRIu64 "\npackets: %" PRIu64
			    " (%" PRIu64 " bad)\ninstructions: %" PRIu64 "\ngaps: %" PRIu64
			    "\nrecording: %s\n", names[cfg->source], what ? " " : "",
			    what ? what : "", srv->st.replay_capture ? " (capture file)" : "",
			    srv->st.source_closed ? " (closed)" : "",
			    srv->st.replay_damaged ? " (damaged: read up to the bad record)" : "",
			    srv->st.bytes, ts.packets,
			    ts.bad_packets, ts.decoder.instructions, srv->st.gaps + ts.decoder.gaps,
			    recording(ss) ? "on" : "off");
		n = spoor_history_sources(srv->st.hist, ids, 64);
		for (size_t i = 0; i < n && i < 64; i++) {
			spoor_history_info(srv->st.hist, ids[i], &hi, sizeof(hi));
			gs_text_add(&out, "history of hart %" PRIu32 ": %" PRIu64 " blocks, %" PRIu64
				    " instructions (of %zu blocks kept)\n", ids[i],
				    hi.next - hi.first, hi.insns, spoor_history_size(srv->st.hist));
		}
		if (!n)
			gs_text_add(&out, "history: empty (%zu blocks kept per hart)\n",
				    spoor_history_size(srv->st.hist));
		pthread_mutex_unlock(&srv->st.lock);
	} else if (!strcmp(cmd, "clear")) {
		pthread_mutex_lock(&srv->st.lock);
		spoor_history_clear(srv->st.hist);
		pthread_mutex_unlock(&srv->st.lock);
		gs_text_add(&out, "history cleared\n");
	} else if (starts(cmd, "save ") || !strcmp(cmd, "save")) {
		const char *path = cmd + 4;

		while (*path == ' ')
			path++;
		if (!*path)
			return send_error(ss, "spoor: usage: monitor trace save FILE");
		ret = gs_state_save(&srv->st, path);
		if (ret == SPOOR_E_TOO_BIG)
			return send_error(ss, "spoor: the trace is longer than the %" PRIu64 " MiB kept "
					  "for saving", GS_RAW_MAX >> 20);
		if (ret)
			return send_error(ss, "spoor: cannot write '%s': %s", path, strerror(errno));
		if (srv->st.replay_capture)
			gs_text_add(&out, "saved the capture file (%" PRIu64 " trace bytes) to %s\n",
				    srv->st.bytes, path);
		else
			gs_text_add(&out, "saved %" PRIu64 " bytes to %s\n", srv->st.bytes, path);
	} else if (!strcmp(cmd, "start") || !strcmp(cmd, "stop")) {
		bool on = !strcmp(cmd, "start");

		if (!ss->proxy)
			return send_error(ss, "spoor: replay: there is no target to trace");
		if (cfg->source != SPOOR_GS_SRC_TCP && cfg->source != SPOOR_GS_SRC_RAM &&
		    cfg->source != SPOOR_GS_SRC_PROBE)
			return send_error(ss, "spoor: no trace source (--trace-port, --probe or "
					  "--ram-sink)");
		ret = hw_trace(ss, on);
		if (ret)
			return send_error(ss, "spoor: trace control through OpenOCD: %s",
					  spoor_errstr(ret));
		gs_text_add(&out, "tracing %s\n", on ? "started" : "stopped");
	} else if (!strcmp(cmd, "calls")) {
		pthread_mutex_lock(&srv->st.lock);
		call_tree(ss, source, &out);
		pthread_mutex_unlock(&srv->st.lock);
	} else {
		return send_error(ss, "spoor: unknown command 'trace %s' (status, start, stop, "
				  "clear, save FILE, calls)", cmd);
	}
	ret = out.failed ? SPOOR_E_NOMEM : console(ss, out.s ? out.s : "");
	gs_text_free(&out);
	if (ret)
		return ret;
	return gs_conn_send_str(&ss->gdb, "OK");
}

/* ---- packets from GDB ------------------------------------------------------ */

/* Our features, appended to the qSupported reply. */
static const char btrace_features[] = ";Qbtrace:bts+;Qbtrace:off+;Qbtrace-conf:bts:size+;"
				       "qXfer:btrace:read+;qXfer:btrace-conf:read+";

/* Qbtrace:bts / Qbtrace:off / Qbtrace-conf:bts:size=N. */
static int handle_qbtrace(struct session *ss, const char *pkt)
{
	struct server *srv = ss->srv;
	uint32_t source = source_of(ss, -1);
	struct gs_btrace_reader *r = reader_of(ss, source);
	uint64_t v;
	int ret;

	if (starts(pkt, "Qbtrace-conf:bts:size=")) {
		if (!hexnum(pkt + strlen("Qbtrace-conf:bts:size="), NULL, &v) ||
		    v < GS_BTS_BYTES_PER_BLOCK)
			return send_error(ss, "spoor: bad bts size");
		/*
		 * GDB asks for its own buffer size (64 KiB unless the user set
		 * another): the history grows to it but keeps what --history
		 * gave, so that GDB's default does not cut it down.
		 */
		v /= GS_BTS_BYTES_PER_BLOCK;
		if (v < srv->cfg->history_blocks)
			v = srv->cfg->history_blocks;
		pthread_mutex_lock(&srv->st.lock);
		ret = spoor_history_resize(srv->st.hist, (size_t)v);
		pthread_mutex_unlock(&srv->st.lock);
		return ret ? send_error(ss, "spoor: %s", spoor_errstr(ret)) :
			     gs_conn_send_str(&ss->gdb, "OK");
	}
	if (starts(pkt, "Qbtrace-conf:"))
		return send_error(ss, "spoor: only the bts size can be set");
	if (!strcmp(pkt, "Qbtrace:off")) {
		if (r)
			memset(r, 0, sizeof(*r));
		ss->always_on = false;
		/* Tracing spoor turned on goes off with the recording. */
		if (ss->proxy && srv->recording_hw && !recording(ss)) {
			ret = hw_trace(ss, false);
			if (ret)
				return send_error(ss, "spoor: trace control through OpenOCD: %s",
						  spoor_errstr(ret));
			srv->recording_hw = false;
		}
		return gs_conn_send_str(&ss->gdb, "OK");
	}
	if (strcmp(pkt, "Qbtrace:bts"))
		return send_error(ss, "spoor: only the bts format (record btrace bts)");
	if (srv->cfg->source == SPOOR_GS_SRC_NONE)
		return send_error(ss, "spoor: no trace source: start spoor gdbserver with "
				  "--trace-port, --probe, --ram-sink or --replay");
	if (!r)
		return send_error(ss, "spoor: hart %" PRIu32 " is beyond the %d spoor follows",
				  source, MAX_READERS);
	if (ss->proxy) {
		ret = hw_tracing(ss);
		if (ret == 0)
			ret = hw_trace(ss, true);
		if (ret < 0)
			return send_error(ss, "spoor: trace control through OpenOCD: %s",
					  spoor_errstr(ret));
	}
	/* GDB recorded the pc itself: the first read is a delta from it. */
	ret = current_pc(ss, source, &v);
	if (ret && ss->proxy)
		return send_error(ss, "spoor: cannot read the pc: %s", spoor_errstr(ret));
	pthread_mutex_lock(&srv->st.lock);
	{
		struct spoor_history_info info;

		spoor_history_info(srv->st.hist, source, &info, sizeof(info));
		r->next_seq = info.next;
	}
	pthread_mutex_unlock(&srv->st.lock);
	r->enabled = true;
	r->read = !ret;
	r->pc = v;
	return gs_conn_send_str(&ss->gdb, "OK");
}

/* qRcmd,HEX: "monitor trace ..." is ours.  Returns 1 when handled, 0 when not, or an error. */
static int handle_qrcmd(struct session *ss, const char *pkt)
{
	const char *hex = pkt + strlen("qRcmd,");
	size_t n = strlen(hex);
	char cmd[1024];
	int k;

	if (n / 2 >= sizeof(cmd))
		return 0;
	k = spoor_rsp_unhex(hex, n, (uint8_t *)cmd, sizeof(cmd) - 1);
	if (k < 0)
		return send_error(ss, "spoor: malformed qRcmd") ? -1 : 1;
	cmd[k] = '\0';
	if (strcmp(cmd, "trace") && !starts(cmd, "trace "))
		return 0;
	return monitor_trace(ss, cmd + 5) ? -1 : 1;
}

/* Replay mode: the target's own packets.  Returns 0 or an error. */
static int replay_packet(struct session *ss, const char *pkt, size_t len)
{
	struct server *srv = ss->srv;
	unsigned xb = srv->cfg->xlen / 8;
	char buf[2 * MEM_CHUNK + 8];
	uint64_t addr, n, pc;
	const char *p;

	switch (pkt[0]) {
	case '?':
		snprintf(buf, sizeof(buf), "T05thread:%" PRIx32 ";", source_of(ss, -1) + 1);
		return gs_conn_send_str(&ss->gdb, buf);
	case 'g': {
		char *out = malloc(33 * 2 * xb + 1), *q = out;

		if (!out)
			return send_error(ss, "out of memory");
		memset(q, 'x', 32 * 2 * xb);
		q += 32 * 2 * xb;
		if (current_pc(ss, source_of(ss, -1), &pc))
			memset(q, 'x', 2 * xb), q[2 * xb] = '\0';
		else
			hex_le(pc, xb, q);
		n = (uint64_t)gs_conn_send_str(&ss->gdb, out);
		free(out);
		return (int)n;
	}
	case 'p':
		if (!hexnum(pkt + 1, &p, &n) || *p)
			return send_error(ss, "malformed p packet");
		if (n > GS_REG_PC)
			return gs_conn_send_str(&ss->gdb, "E45");
		if (n < GS_REG_PC || current_pc(ss, source_of(ss, -1), &pc)) {
			memset(buf, 'x', 2 * xb);
			buf[2 * xb] = '\0';
		} else {
			hex_le(pc, xb, buf);
		}
		return gs_conn_send_str(&ss->gdb, buf);
	case 'm': {
		uint8_t bytes[MEM_CHUNK];
		size_t got;

		if (!hexnum(pkt + 1, &p, &addr) || *p != ',' || !hexnum(p + 1, &p, &n) || *p)
			return send_error(ss, "malformed m packet");
		got = gs_memory_read(&srv->mem, addr, n < MEM_CHUNK ? (size_t)n : MEM_CHUNK, bytes);
		if (!got)
			return gs_conn_send_str(&ss->gdb, "E01");
		spoor_rsp_hex(bytes, got, buf);
		return gs_conn_send(&ss->gdb, buf, 2 * got);
	}
	case 'H':
		if (len > 1 && (pkt[1] == 'g' || pkt[1] == 'c')) {
			int64_t tid = strtoll(pkt + 2, NULL, 16);

			if (pkt[1] == 'g')
				ss->gthread = tid;
			return gs_conn_send_str(&ss->gdb, "OK");
		}
		break;
	case 'T':
		return gs_conn_send_str(&ss->gdb, "OK");
	case 'Z':
	case 'z':
		/* Breakpoints in the history: GDB checks them while replaying. */
		if (len > 1 && pkt[1] == '0')
			return gs_conn_send_str(&ss->gdb, "OK");
		break;
	case 'c':
	case 's':
	case 'C':
	case 'S':
		return send_error(ss, "spoor: replay of a capture: the target cannot run "
				  "(use reverse execution or record goto)");
	case 'M':
	case 'X':
	case 'G':
	case 'P':
		return send_error(ss, "spoor: replay of a capture: the target is read-only");
	case 'D':
		gs_conn_send_str(&ss->gdb, "OK");
		return SPOOR_E_CLOSED;
	case 'k':
		return SPOOR_E_CLOSED;
	case 'q':
		if (!strcmp(pkt, "qfThreadInfo")) {
			uint32_t ids[256];
			size_t k = spoor_history_sources(srv->st.hist, ids, 256), o = 1;

			buf[0] = 'm';
			for (size_t i = 0; i < k && i < 256 && o < sizeof(buf) - 16; i++)
				o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%s%" PRIx32,
						      i ? "," : "", ids[i] + 1);
			buf[o] = '\0';
			return gs_conn_send_str(&ss->gdb, k ? buf : "l");
		}
		if (!strcmp(pkt, "qsThreadInfo"))
			return gs_conn_send_str(&ss->gdb, "l");
		if (!strcmp(pkt, "qC")) {
			snprintf(buf, sizeof(buf), "QC%" PRIx32, source_of(ss, -1) + 1);
			return gs_conn_send_str(&ss->gdb, buf);
		}
		if (!strcmp(pkt, "qAttached"))
			return gs_conn_send_str(&ss->gdb, "1");
		if (starts(pkt, "qSupported")) {
			snprintf(buf, sizeof(buf), "PacketSize=%x;QStartNoAckMode+;"
				 "qXfer:features:read+;qXfer:threads:read+%s", MAX_PACKET / 4,
				 btrace_features);
			return gs_conn_send_str(&ss->gdb, buf);
		}
		if (starts(pkt, "qRcmd,"))
			return send_error(ss, "spoor: replay: only 'monitor trace ...' commands");
		break;
	case 'Q':
		if (!strcmp(pkt, "QStartNoAckMode")) {
			int ret = gs_conn_send_str(&ss->gdb, "OK");

			ss->gdb.noack = true;
			return ret;
		}
		break;
	case 'v':
		if (!strcmp(pkt, "vMustReplyEmpty"))
			break;
		if (starts(pkt, "vKill"))
			return gs_conn_send_str(&ss->gdb, "OK");
		break;
	default:
		break;
	}
	return gs_conn_send_str(&ss->gdb, "");
}

/* True for a packet that resumes the target. */
static bool is_resume(const char *pkt)
{
	return pkt[0] == 'c' || pkt[0] == 's' || pkt[0] == 'C' || pkt[0] == 'S' ||
	       (starts(pkt, "vCont;") && !starts(pkt, "vCont?"));
}

/* One packet from GDB.  Returns 0 or an error (the session ends). */
static int gdb_packet(struct session *ss, const struct spoor_rsp_item *it)
{
	const char *pkt = (const char *)it->data;
	int ret;

	if (starts(pkt, "Qbtrace"))
		return handle_qbtrace(ss, pkt);
	if (starts(pkt, "qXfer:")) {
		ret = handle_qxfer(ss, pkt);
		if (ret)
			return ret < 0 ? SPOOR_E_IO : 0;
	}
	if (starts(pkt, "qRcmd,")) {
		ret = handle_qrcmd(ss, pkt);
		if (ret)
			return ret < 0 ? SPOOR_E_IO : 0;
	}
	if (!ss->proxy)
		return replay_packet(ss, pkt, it->len);
	/* Forwarded unchanged. */
	if (starts(pkt, "qSupported"))
		ss->fwd_qsupported = true;
	if (!strcmp(pkt, "QStartNoAckMode"))
		ss->fwd_noack = true;
	if (is_resume(pkt)) {
		pthread_mutex_lock(&ss->srv->st.lock);
		ss->stops_at_resume = ss->srv->st.stops;
		pthread_mutex_unlock(&ss->srv->st.lock);
		ss->running = true;
	}
	if (pkt[0] == 'H' && it->len > 1 && pkt[1] == 'g')
		ss->gthread = strtoll(pkt + 2, NULL, 16);
	if (pkt[0] == 'D' || pkt[0] == 'k')
		ss->running = false;
	return gs_conn_send_raw(&ss->up, it->raw, it->raw_len, true);
}

/* ---- packets from OpenOCD -------------------------------------------------- */

/* True for a stop reply (T, S, W, X). */
static bool is_stop_reply(const char *pkt, size_t len)
{
	return len >= 3 && (pkt[0] == 'T' || pkt[0] == 'S' || pkt[0] == 'W' || pkt[0] == 'X') &&
	       strchr("0123456789abcdefABCDEF", pkt[1]) && strchr("0123456789abcdefABCDEF", pkt[2]);
}

/* One packet from OpenOCD.  Returns 0 or an error. */
static int up_packet(struct session *ss, const struct spoor_rsp_item *it)
{
	const char *pkt = (const char *)it->data;
	int ret;

	if (it->kind == SPOOR_RSP_NOTIFY)
		return gs_conn_send_raw(&ss->gdb, it->raw, it->raw_len, false);
	if (ss->fwd_qsupported && !(it->len > 1 && pkt[0] == 'O' && strcmp(pkt, "OK"))) {
		char *r = malloc(it->len + sizeof(btrace_features));

		ss->fwd_qsupported = false;
		if (!r)
			return SPOOR_E_NOMEM;
		memcpy(r, pkt, it->len);
		memcpy(r + it->len, btrace_features, sizeof(btrace_features));
		ret = gs_conn_send_str(&ss->gdb, r);
		free(r);
		return ret;
	}
	if (ss->fwd_noack && !strcmp(pkt, "OK")) {
		/* Both links leave ack mode together. */
		ss->fwd_noack = false;
		ret = gs_conn_send_raw(&ss->gdb, it->raw, it->raw_len, true);
		ss->gdb.noack = true;
		ss->up.noack = true;
		return ret;
	}
	ss->fwd_noack = false;
	if (is_stop_reply(pkt, it->len)) {
		/* Held while spoor talks to OpenOCD itself: a copy of it. */
		uint8_t *stop = malloc(it->raw_len);
		size_t len = it->raw_len;

		if (!stop)
			return SPOOR_E_NOMEM;
		memcpy(stop, it->raw, len);
		sync_stop(ss);
		ss->running = false;
		ret = gs_conn_send_raw(&ss->gdb, stop, len, true);
		free(stop);
		return ret;
	}
	return gs_conn_send_raw(&ss->gdb, it->raw, it->raw_len, true);
}

/* ---- sessions -------------------------------------------------------------- */

/* Prints a malformed-input report from @c (the first ten of a connection). */
static void report_error(const struct gs_conn *c, const struct spoor_rsp_item *it)
{
	if (c->errors <= 10)
		fprintf(stderr, "spoor gdbserver: from %s, stream offset %" PRIu64 ": %s%s\n",
			c->name, it->offset, spoor_errstr(it->reason),
			c->errors == 10 ? " (further ones on this connection not shown)" : "");
}

/* Connects to OpenOCD for a session; returns 0 or -1 with @err set. */
static int connect_up(struct session *ss, char *err, size_t size)
{
	int fd = gs_connect(ss->srv->openocd_addr, err, size);

	if (fd < 0)
		return -1;
	if (gs_conn_init(&ss->up, fd, "OpenOCD", MAX_PACKET)) {
		snprintf(err, size, "out of memory");
		return -1;
	}
	ss->up.log = ss->srv->cfg->verbose;
	{
		struct timeval tv = { .tv_sec = 10 };

		setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	}
	/* OpenOCD serves once it has the client's first acknowledgement. */
	if (gs_conn_send_raw(&ss->up, "+", 1, false)) {
		snprintf(err, size, "OpenOCD at %s closed the connection", ss->srv->openocd_addr);
		return -1;
	}
	return 0;
}

/* Serves one GDB connection on @fd until it ends. */
static void session(struct server *srv, int fd)
{
	struct session *ss = calloc(1, sizeof(*ss));
	struct spoor_rsp_item it;
	char err[256];
	int k, ret = 0;

	if (!ss || gs_conn_init(&ss->gdb, fd, "GDB", MAX_PACKET)) {
		fprintf(stderr, "spoor gdbserver: out of memory\n");
		if (!ss)
			close(fd);
		free(ss);
		return;
	}
	ss->srv = srv;
	ss->gdb.log = srv->cfg->verbose;
	ss->proxy = !srv->replay;
	ss->up.fd = -1;
	if (ss->proxy && connect_up(ss, err, sizeof(err))) {
		fprintf(stderr, "spoor gdbserver: OpenOCD: %s\n", err);
		/* Tell GDB why, then end the connection. */
		if (gs_conn_next(&ss->gdb, &it, 2000) == SPOOR_RSP_PACKET)
			send_error(ss, "spoor: cannot reach OpenOCD: %s", err);
		goto out;
	}
	if (srv->replay) {
		ss->always_on = true;
	} else if (srv->cfg->source != SPOOR_GS_SRC_NONE) {
		/* Tracing already on: GDB finds it recording when it connects. */
		ss->always_on = hw_tracing(ss) == 1;
	}
	while (!quit) {
		struct pollfd p[2] = {
			{ .fd = ss->gdb.fd, .events = POLLIN },
			{ .fd = ss->proxy ? ss->up.fd : -1, .events = POLLIN },
		};

		if (!ss->gdb.pending && !(ss->proxy && ss->up.pending) && poll(p, 2, 500) <= 0)
			continue;
		if (ss->gdb.pending || p[0].revents) {
			k = gs_conn_next(&ss->gdb, &it, 0);
			if (k == SPOOR_RSP_PACKET) {
				ret = gdb_packet(ss, &it);
			} else if (k == SPOOR_RSP_INTERRUPT) {
				if (ss->proxy)
					ret = gs_conn_send_raw(&ss->up, "\x03", 1, false);
			} else if (k == SPOOR_RSP_ERROR) {
				report_error(&ss->gdb, &it);
			} else if (k < 0) {
				if (k != SPOOR_E_CLOSED)
					fprintf(stderr, "spoor gdbserver: GDB connection: %s\n",
						spoor_errstr(k));
				break;
			}
			if (ret)
				break;
		}
		if (ss->proxy && (ss->up.pending || p[1].revents)) {
			k = gs_conn_next(&ss->up, &it, 0);
			if (k == SPOOR_RSP_PACKET || k == SPOOR_RSP_NOTIFY) {
				ret = up_packet(ss, &it);
			} else if (k == SPOOR_RSP_ERROR) {
				report_error(&ss->up, &it);
			} else if (k < 0) {
				fprintf(stderr, "spoor gdbserver: the connection to OpenOCD ended: %s\n",
					spoor_errstr(k));
				if (ss->running)
					gs_conn_send_str(&ss->gdb, "X09");
				else
					send_error(ss, "spoor: OpenOCD closed the connection");
				break;
			}
			if (ret)
				break;
		}
	}
	if (ret && ret != SPOOR_E_CLOSED)
		fprintf(stderr, "spoor gdbserver: session ended: %s\n", spoor_errstr(ret));
out:
	gs_conn_close(&ss->gdb);
	if (ss->up.fd >= 0 || ss->up.rsp)
		gs_conn_close(&ss->up);
	gs_text_free(&ss->doc);
	free(ss->reply);
	free(ss);
}

/* ---- OpenOCD started here --------------------------------------------------- */

/* Milliseconds on the monotonic clock. */
static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * Starts OpenOCD with the configuration file, its GDB port on any free
 * loopback port, telnet and Tcl off; its output goes to a log file in
 * which the port it took is found.  Returns 0 or -1 after a message (with
 * OpenOCD's output).
 */
static int start_openocd(struct server *srv)
{
	const struct spoor_gdbserver_config *cfg = srv->cfg;
	const char *argv[64];
	char line[512];
	int n = 0, logfd;
	int64_t deadline;
	FILE *log;

	argv[n++] = cfg->openocd_bin ? cfg->openocd_bin : "openocd";
	for (size_t i = 0; i < cfg->n_openocd_cmds && n < 50; i++) {
		argv[n++] = "-c";
		argv[n++] = cfg->openocd_cmds[i];
	}
	argv[n++] = "-f";
	argv[n++] = cfg->openocd_cfg;
	argv[n++] = "-c";
	argv[n++] = "bindto 127.0.0.1; gdb_port 0; telnet_port disabled; tcl_port disabled";
	argv[n] = NULL;
	snprintf(srv->openocd_log, sizeof(srv->openocd_log), "%s/spoor-openocd-XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	logfd = mkstemp(srv->openocd_log);
	if (logfd < 0) {
		fprintf(stderr, "spoor gdbserver: cannot create OpenOCD's log %s: %s\n",
			srv->openocd_log, strerror(errno));
		srv->openocd_log[0] = '\0';
		return -1;
	}
	srv->openocd_pid = fork();
	if (srv->openocd_pid < 0) {
		fprintf(stderr, "spoor gdbserver: cannot start OpenOCD: %s\n", strerror(errno));
		close(logfd);
		return -1;
	}
	if (!srv->openocd_pid) {
		/* Only async-signal-safe calls between fork and exec. */
		dup2(logfd, STDOUT_FILENO);
		dup2(logfd, STDERR_FILENO);
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(logfd);
	log = fopen(srv->openocd_log, "r");
	deadline = mono_ms() + 15000;
	while (log && mono_ms() < deadline) {
		unsigned port;

		if (!fgets(line, sizeof(line), log)) {
			if (waitpid(srv->openocd_pid, NULL, WNOHANG) == srv->openocd_pid) {
				srv->openocd_pid = 0;	/* it ended */
				break;
			}
			clearerr(log);
			usleep(20000);
			continue;
		}
		const char *p = strstr(line, "Listening on port ");

		if (p && strstr(p, "for gdb connections") &&
		    sscanf(p, "Listening on port %u", &port) == 1) {
			snprintf(srv->openocd_addr, sizeof(srv->openocd_addr), "127.0.0.1:%u",
				 port);
			fclose(log);
			return 0;
		}
	}
	fprintf(stderr, "spoor gdbserver: OpenOCD (%s) did not open its GDB port; its output:\n",
		cfg->openocd_cfg);
	if (log) {
		rewind(log);
		while (fgets(line, sizeof(line), log))
			fprintf(stderr, "openocd: %s", line);
		fclose(log);
	}
	return -1;
}

/* Stops the OpenOCD started here, if any, and removes its log. */
static void stop_openocd(struct server *srv)
{
	if (srv->openocd_pid > 0) {
		kill(srv->openocd_pid, SIGTERM);
		waitpid(srv->openocd_pid, NULL, 0);
		srv->openocd_pid = 0;
	}
	if (srv->openocd_log[0])
		unlink(srv->openocd_log);
	srv->openocd_log[0] = '\0';
}

/* ---- the server ------------------------------------------------------------ */

/* Opens the listening socket; returns it or -1 (errno set). */
static int listen_on(const char *host, unsigned port, unsigned *bound)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	socklen_t len = sizeof(a);
	int fd, one = 1;

	if (inet_pton(AF_INET, host, &a.sin_addr) != 1) {
		errno = EINVAL;
		return -1;
	}
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) || listen(fd, 4) ||
	    getsockname(fd, (struct sockaddr *)&a, &len)) {
		close(fd);
		return -1;
	}
	*bound = ntohs(a.sin_port);
	return fd;
}

/* Loads what replay mode serves: the capture through the pipeline, the ELF files. */
static int load_replay(struct server *srv)
{
	const struct spoor_gdbserver_config *cfg = srv->cfg;
	struct spoor_trace_stats ts;
	struct spoor_diag diag;
	char err[512];
	int ret;

	for (size_t i = 0; i < cfg->nelf; i++) {
		if (gs_memory_add_elf(&srv->mem, cfg->elfs[i], cfg->elf_offsets ?
				      cfg->elf_offsets[i] : 0, &diag)) {
			fprintf(stderr, "spoor gdbserver: %s\n", diag.msg);
			return -1;
		}
	}
	ret = gs_state_load_file(&srv->st, cfg->replay, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "spoor gdbserver: %s\n", err);
		return -1;
	}
	spoor_trace_stats(srv->st.trace, &ts, sizeof(ts));
	fprintf(stderr, "spoor gdbserver: %s: %s%" PRIu64 " bytes, %" PRIu64 " instructions on %"
		PRIu32 " hart(s), %" PRIu64 " gap(s)", cfg->replay,
		srv->st.replay_capture ? "capture file, " : "", srv->st.bytes,
		ts.decoder.instructions, ts.sources, srv->st.gaps + ts.decoder.gaps);
	if (srv->st.losses)
		fprintf(stderr, ", %" PRIu64 " loss%s in the capture", srv->st.losses,
			srv->st.losses == 1 ? "" : "es");
	fputs(srv->st.replay_damaged ? ", the capture file is damaged\n" : "\n", stderr);
	if (!ts.decoder.instructions)
		fprintf(stderr, "spoor gdbserver: warning: %s holds no decodable instructions\n",
			cfg->replay);
	return 0;
}

int spoor_gdbserver_run(const struct spoor_gdbserver_config *cfg)
{
	struct server *srv = calloc(1, sizeof(*srv));
	struct sigaction sa = { .sa_handler = on_signal };
	char err[512];
	unsigned port;
	int lfd = -1, status = 2;	/* the exit status: 2 error */

	if (!srv) {
		fprintf(stderr, "spoor gdbserver: out of memory\n");
		return 2;
	}
	srv->cfg = cfg;
	srv->replay = cfg->source == SPOOR_GS_SRC_FILE;
	if (gs_state_init(&srv->st, &cfg->trace, cfg->history_blocks)) {
		fprintf(stderr, "spoor gdbserver: cannot set up the trace pipeline (parameters, "
			"encapsulation or memory)\n");
		goto out;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (srv->replay && load_replay(srv))
		goto out;
	if (cfg->source == SPOOR_GS_SRC_TCP &&
	    gs_state_start_tcp(&srv->st, cfg->trace_port, err, sizeof(err))) {
		fprintf(stderr, "spoor gdbserver: trace port: %s\n", err);
		goto out;
	}
	if (cfg->source == SPOOR_GS_SRC_PROBE &&
	    gs_state_start_probe(&srv->st, cfg->probe, &cfg->probe_cfg, err, sizeof(err))) {
		fprintf(stderr, "spoor gdbserver: probe: %s\n", err);
		goto out;
	}
	if (!srv->replay) {
		if (cfg->openocd_cfg) {
			if (start_openocd(srv))
				goto out;
		} else {
			snprintf(srv->openocd_addr, sizeof(srv->openocd_addr), "%s",
				 cfg->openocd ? cfg->openocd : "127.0.0.1:3333");
		}
	}
	lfd = listen_on(cfg->host ? cfg->host : "127.0.0.1", cfg->port, &port);
	if (lfd < 0) {
		fprintf(stderr, "spoor gdbserver: cannot listen on %s:%u: %s\n",
			cfg->host ? cfg->host : "127.0.0.1", cfg->port, strerror(errno));
		goto out;
	}
	printf("gdb: %s:%u\n", cfg->host ? cfg->host : "127.0.0.1", port);
	if (!srv->replay)
		printf("openocd: %s\n", srv->openocd_addr);
	fflush(stdout);
	status = 0;
	while (!quit) {
		struct pollfd p = { .fd = lfd, .events = POLLIN };
		int fd, one = 1;

		if (poll(&p, 1, 500) <= 0)
			continue;
		fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0)
			continue;
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		{
			struct timeval tv = { .tv_sec = 10 };

			setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
		}
		session(srv, fd);
		if (cfg->once)
			break;
	}
out:
	if (lfd >= 0)
		close(lfd);
	stop_openocd(srv);
	gs_state_free(&srv->st);
	gs_memory_free(&srv->mem);
	free(srv);
	return status;
}
