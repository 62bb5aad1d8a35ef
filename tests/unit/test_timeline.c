// SPDX-License-Identifier: MIT
/*
 * Tests for the timeline sink (timeline.h): synthetic blocks on a real
 * program (the ISS's recursion.elf: fib calling itself, a trap handler
 * ending in mret) give the slices, instants and ts expected; every output
 * is well formed (one event per line: per track, B/E balanced and ts never
 * decreasing); min_insns, max_events, timestamps, JSON escaping, two harts,
 * restarts, a failed write, and running out of memory at every allocation
 * in turn (every "E" still names its "B").
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "spoor/error.h"
#include "spoor/funcs.h"
#include "spoor/image.h"
#include "spoor/insn.h"
#include "spoor/timeline.h"

#include "fail_alloc.h"

/* The program's landmarks, found by decoding its instructions. */
struct prog {
	struct spoor_image *img;
	struct spoor_funcs *funcs;
	unsigned xlen;
	uint64_t fib, fib_end;	/* fib's range */
	uint64_t call1, call2;	/* fib's two calls of itself */
	uint8_t len1, len2;
	uint64_t ret;		/* fib's last return */
	uint64_t handler;	/* start of the function holding an mret */
	uint64_t mret;
};

/* Decodes the instruction at @addr into @in; returns its length or 0. */
static unsigned insn_at(const struct prog *p, uint64_t addr, struct spoor_insn *in)
{
	size_t avail;
	const uint8_t *b = spoor_image_ptr(p->img, addr, &avail);
	uint32_t raw;

	if (!b || avail < 2)
		return 0;
	raw = b[0] | (uint32_t)b[1] << 8;
	if (avail >= 4)
		raw |= (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
	return spoor_insn_decode(raw, p->xlen, in) > 0 ? in->len : 0;
}

/* Returns how many instructions [start, last] holds (0: not an instruction boundary). */
static uint64_t count_insns(const struct prog *p, uint64_t start, uint64_t last)
{
	struct spoor_insn in;
	uint64_t n = 0, a = start;

	while (a <= last) {
		unsigned len = insn_at(p, a, &in);

		if (!len)
			return 0;
		n++;
		if (a == last)
			return n;
		a += len;
	}
	return 0;
}

/* Loads the program and finds its landmarks; returns false when it cannot. */
static bool prog_load(struct prog *p, const char *path)
{
	struct spoor_diag d;
	struct spoor_insn in;

	memset(p, 0, sizeof(*p));
	p->img = spoor_image_new();
	if (!p->img || spoor_image_add_elf(p->img, path, 0, &d))
		return false;
	p->xlen = spoor_image_xlen(p->img);
	p->funcs = spoor_funcs_new(p->img);
	if (!p->funcs)
		return false;
	for (uint32_t id = 0; id < spoor_funcs_symbols(p->funcs); id++) {
		const struct spoor_func *fn = spoor_funcs_get(p->funcs, id);
		uint64_t start = fn->start, end = fn->end;
		bool fib = !strcmp(fn->name, "fib");

		if (fib) {
			p->fib = start;
			p->fib_end = end;
		}
		for (uint64_t a = start; a < end;) {
			unsigned len = insn_at(p, a, &in);

			if (!len)
				break;
			if (fib && in.cls == SPOOR_INSN_JUMP && (in.flags & SPOOR_INSN_CALL) &&
			    a + (uint64_t)in.imm == start) {
				if (!p->call1) {
					p->call1 = a;
					p->len1 = (uint8_t)len;
				} else {
					p->call2 = a;
					p->len2 = (uint8_t)len;
				}
			}
			if (fib && (in.flags & SPOOR_INSN_RETURN))
				p->ret = a;
			if (in.cls == SPOOR_INSN_XRET && !p->mret) {
				p->mret = a;
				p->handler = start;
			}
			a += len;
		}
	}
	return p->fib && p->call1 && p->call2 && p->ret > p->call2 && p->mret;
}

/* Frees what prog_load() loaded. */
static void prog_free(struct prog *p)
{
	spoor_funcs_free(p->funcs);
	spoor_image_free(p->img);
}

/* The block [start, last] ending @end with @next. */
static struct spoor_block blk(const struct prog *p, uint64_t start, uint64_t last,
			      uint8_t end, uint64_t next)
{
	struct spoor_insn in;
	struct spoor_block b = {
		.start = start, .last = last, .ninsn = count_insns(p, start, last), .next = next,
		.end = end, .last_len = (uint8_t)insn_at(p, last, &in), .priv = 3,
	};

	CHECK(b.ninsn > 0);
	return b;
}

/* Feeds event @e of @source to @s. */
static void event(struct spoor_sink *s, uint32_t source, struct spoor_event e)
{
	struct spoor_dec_item it = { .kind = SPOOR_DEC_EVENT, .source = source, .event = e };

	spoor_sink_event(s, &it);
}

/* Reads all of @f (rewound) into a malloc'd string. */
static char *slurp(FILE *f)
{
	long n;
	char *buf;

	fflush(f);
	n = ftell(f);
	buf = malloc((size_t)n + 1);
	if (!buf)
		return NULL;
	rewind(f);
	buf[fread(buf, 1, (size_t)n, f)] = '\0';
	return buf;
}

/* Returns the number of times @needle occurs in @hay. */
static unsigned count(const char *hay, const char *needle)
{
	unsigned n = 0;

	for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

/*
 * Checks the shape of timeline @json: the head and tail, one event a line,
 * per tid B/E balanced with matching names and ts never decreasing.
 * Returns the number of B events.
 */
static unsigned check_shape(const char *json)
{
	struct { long tid; uint64_t ts; unsigned depth; char names[64][64]; } tr[4];
	unsigned ntr = 0, nb = 0;
	const char *line = json;

	memset(tr, 0, sizeof(tr));
	CHECK(!strncmp(json, "{\"traceEvents\":[\n", 17));
	CHECK(strstr(json, "\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{") != NULL);
	CHECK(json[strlen(json) - 1] == '\n' && json[strlen(json) - 2] == '}');
	while ((line = strchr(line, '\n')) != NULL) {
		const char *ph, *tid, *ts, *name;
		char n[64] = "";
		unsigned i;
		uint64_t t;
		long id;

		line++;
		if (strncmp(line, "{\"name\":\"", 9))
			continue;
		ph = strstr(line, "\"ph\":\"");
		tid = strstr(line, "\"tid\":");
		ts = strstr(line, "\"ts\":");
		CHECK(ph && tid);
		if (!ph || !tid || ph[6] == 'M')
			continue;
		CHECK(ts != NULL);
		if (!ts)
			continue;
		name = line + 9;
		sscanf(name, "%63[^\"]", n);
		id = strtol(tid + 6, NULL, 10);
		t = strtoull(ts + 5, NULL, 10);
		for (i = 0; i < ntr && tr[i].tid != id; i++)
			;
		if (i == ntr) {
			CHECK(ntr < 4);
			if (ntr == 4)
				continue;
			tr[ntr++].tid = id;
		}
		CHECK(t >= tr[i].ts);
		tr[i].ts = t;
		if (ph[6] == 'B') {
			nb++;
			CHECK(tr[i].depth < 64);
			if (tr[i].depth < 64)
				strcpy(tr[i].names[tr[i].depth++], n);
		} else if (ph[6] == 'E') {
			CHECK(tr[i].depth > 0);
			if (tr[i].depth > 0)
				CHECK(!strcmp(tr[i].names[--tr[i].depth], n));
		} else {
			CHECK(ph[6] == 'i' && strstr(line, "\"s\":\"t\"") != NULL);
		}
	}
	for (unsigned i = 0; i < ntr; i++)
		CHECK_EQ(tr[i].depth, 0);
	return nb;
}

/* Returns true when @json holds the @ph event of @name at @ts on tid @tid. */
static bool has_event(const char *json, const char *name, const char *ph, unsigned tid,
		      uint64_t ts)
{
	for (const char *l = strstr(json, "\n{\"name\":\""); l; l = strstr(l + 1, "\n{\"name\":\"")) {
		const char *ph_at = strstr(l, "\"ph\":\""), *nl = strchr(l + 1, '\n');
		char buf[256];

		if (!ph_at || (nl && ph_at > nl))
			continue;
		/* compare with the cat left out */
		snprintf(buf, sizeof(buf), "{\"name\":\"%s\",\"cat\":\"", name);
		if (strncmp(l + 1, buf, strlen(buf)))
			continue;
		snprintf(buf, sizeof(buf), "\"ph\":\"%s\",%s\"pid\":1,\"tid\":%u,\"ts\":%" PRIu64 ",",
			 ph, strcmp(ph, "i") ? "" : "\"s\":\"t\",", tid, ts);
		if (!strncmp(ph_at, buf, strlen(buf)))
			return true;
	}
	return false;
}

/*
 * The scenario on hart @src of @s: fib (root) calls fib, which calls fib,
 * which returns; an illegal instruction traps to the handler, which mrets;
 * the second fib returns.  Sets *@n1.. to the blocks' sizes.
 */
static void scenario(const struct prog *p, struct spoor_sink *s, uint32_t src, uint64_t *n)
{
	struct spoor_block b[6];
	struct spoor_event trap = {
		.kind = SPOOR_EV_TRAP, .cause = 2, .has_epc = true, .epc = p->call1 + p->len1,
		.tval = 0x1234, .address = p->handler,
	};

	b[0] = blk(p, p->fib, p->call1, SPOOR_BLK_JUMP, p->fib);
	b[1] = blk(p, p->fib, p->call1, SPOOR_BLK_JUMP, p->fib);
	b[2] = blk(p, p->call2 + p->len2, p->ret, SPOOR_BLK_UNINFERABLE, p->call1 + p->len1);
	/* the trap: the event, a block ending at the faulting instruction, the handler */
	b[3] = blk(p, p->call1 + p->len1, p->call1 + p->len1, SPOOR_BLK_TRAP, 0);
	b[3].ninsn = 0;		/* the faulting instruction did not retire */
	b[3].end = SPOOR_BLK_TRAP;
	b[4] = blk(p, p->handler, p->mret, SPOOR_BLK_UNINFERABLE, p->call1 + p->len1);
	b[5] = blk(p, p->call2 + p->len2, p->ret, SPOOR_BLK_UNINFERABLE, p->call1 + p->len1);
	for (int i = 0; i < 6; i++)
		n[i] = b[i].ninsn;
	spoor_sink_blocks(s, src, b, 3);
	event(s, src, trap);
	spoor_sink_blocks(s, src, b + 3, 1);
	spoor_sink_blocks(s, src, b + 4, 2);
}

/* Bad arguments, finishing twice, the cause names. */
static void test_args(struct prog *p)
{
	struct spoor_timeline_config cfg;
	struct spoor_timeline_stats st;
	FILE *f = tmpfile();
	struct spoor_sink *s;

	spoor_timeline_config_init(&cfg);
	CHECK(spoor_timeline_new(NULL, f, NULL) == NULL);
	CHECK(spoor_timeline_new(p->funcs, NULL, NULL) == NULL);
	cfg.axis = 3;
	CHECK(spoor_timeline_new(p->funcs, f, &cfg) == NULL);
	CHECK_EQ(spoor_timeline_finish(NULL), SPOOR_E_INVAL);
	CHECK_EQ(spoor_timeline_stats(NULL, &st, sizeof(st)), SPOOR_E_INVAL);
	s = spoor_timeline_new(p->funcs, f, NULL);
	CHECK(s != NULL);
	CHECK_EQ(spoor_timeline_stats(s, NULL, sizeof(st)), SPOOR_E_INVAL);
	CHECK_EQ(spoor_sink_error(s), 0);
	CHECK_EQ(spoor_timeline_finish(s), 0);
	CHECK_EQ(spoor_timeline_finish(s), SPOOR_E_INVAL);	/* twice */
	spoor_sink_free(s);
	spoor_sink_free(NULL);
	CHECK(!strcmp(spoor_timeline_cause_name(2, false), "illegal instruction"));
	CHECK(!strcmp(spoor_timeline_cause_name(7, true), "machine timer"));
	CHECK(spoor_timeline_cause_name(10, false) == NULL);
	CHECK(spoor_timeline_cause_name(UINT64_MAX, true) == NULL);
	fclose(f);
}

/* An empty trace: a complete file with no slices. */
static void test_empty(struct prog *p)
{
	FILE *f = tmpfile();
	struct spoor_sink *s = spoor_timeline_new(p->funcs, f, NULL);
	char *json;

	CHECK_EQ(spoor_timeline_finish(s), 0);
	json = slurp(f);
	CHECK_EQ(check_shape(json), 0);
	CHECK(strstr(json, "\"process_name\"") != NULL);
	CHECK(strstr(json, "recursion.elf") != NULL);
	free(json);
	spoor_sink_free(s);
	fclose(f);
}

/* Returns the timeline (malloc'd) of the scenario with @cfg; its stats into @st. */
static char *run_scenario(struct prog *p, const struct spoor_timeline_config *cfg, uint64_t *n,
			  struct spoor_timeline_stats *st)
{
	FILE *f = tmpfile();
	struct spoor_sink *s = spoor_timeline_new(p->funcs, f, cfg);
	char *json;

	CHECK(s != NULL);
	scenario(p, s, 0, n);
	CHECK_EQ(spoor_sink_error(s), 0);
	CHECK_EQ(spoor_timeline_finish(s), 0);
	CHECK_EQ(spoor_timeline_stats(s, st, sizeof(*st)), 0);
	json = slurp(f);
	spoor_sink_free(s);
	fclose(f);
	return json;
}

/* The scenario's slices, instants and ts. */
static void test_slices(struct prog *p)
{
	struct spoor_timeline_stats st;
	uint64_t n[6], t;
	char *json = run_scenario(p, NULL, n, &st);

	CHECK_EQ(check_shape(json), 4);
	CHECK_EQ(st.slices, 4);
	CHECK_EQ(st.traps, 1);
	CHECK_EQ(st.dropped, 0);
	CHECK_EQ(st.axis, SPOOR_TL_AXIS_INSNS);
	CHECK(has_event(json, "fib", "B", 0, 0));		/* the root */
	CHECK(strstr(json, "\"cat\":\"root\",\"ph\":\"B\"") != NULL);
	CHECK(has_event(json, "fib", "B", 0, n[0]));		/* its call */
	CHECK(has_event(json, "fib", "B", 0, n[0] + n[1]));	/* the call's call */
	t = n[0] + n[1] + n[2];
	CHECK(has_event(json, "fib", "E", 0, t));		/* ... returned */
	CHECK(strstr(json, "\"args\":{\"left\":\"return\"}") != NULL);
	CHECK(has_event(json, "exception 2 (illegal instruction)", "i", 0, t));
	CHECK(strstr(json, "\"cause\":2,\"epc\":\"0x") != NULL);
	CHECK(strstr(json, ",\"tval\":\"0x1234\"") != NULL);
	CHECK_EQ(count(json, "\"cat\":\"trap\",\"ph\":\"B\""), 1);	/* the handler */
	t += n[4];
	CHECK_EQ(count(json, "\"cat\":\"trap\",\"ph\":\"E\",\"pid\":1,\"tid\":0,\"ts\""), 1);
	t += n[5];
	CHECK(has_event(json, "fib", "E", 0, t));		/* the first call returned */
	CHECK(strstr(json, "\"left\":\"reset\"") != NULL);	/* the root, at the end */
	CHECK(strstr(json, "\"time_axis\":\"instructions\"") != NULL);
	CHECK(strstr(json, "hart 0 \xe2\x80\x94 time axis: retired instructions") != NULL);
	CHECK(strstr(json, "\"truncated\":false") != NULL);
	free(json);
}

/* min_insns 1 keeps everything (in the same order); a huge one keeps what holds a trap. */
static void test_min_insns(struct prog *p)
{
	struct spoor_timeline_config cfg;
	struct spoor_timeline_stats st;
	uint64_t n[6];
	char *all = run_scenario(p, NULL, n, &st), *one, *big;

	spoor_timeline_config_init(&cfg);
	cfg.min_insns = 1;
	one = run_scenario(p, &cfg, n, &st);
	CHECK(!strncmp(all, one, (size_t)(strstr(all, "\"otherData\"") - all)));
	CHECK_EQ(st.dropped, 0);
	cfg.min_insns = 1000000;
	big = run_scenario(p, &cfg, n, &st);
	CHECK_EQ(check_shape(big), 2);	/* root fib and its call: the trap hit them */
	CHECK_EQ(st.dropped, 2);	/* the short call, the handler */
	CHECK_EQ(st.traps, 1);
	CHECK(has_event(big, "fib", "B", 0, n[0]));
	CHECK_EQ(count(big, "\"cat\":\"trap\""), 0);
	CHECK(strstr(big, "\"min_insns\":1000000") != NULL);
	/* just long enough for the call's call (n[2]): all, the handler if long enough */
	cfg.min_insns = n[2];
	free(big);
	big = run_scenario(p, &cfg, n, &st);
	CHECK_EQ(check_shape(big), n[4] >= cfg.min_insns ? 4 : 3);
	free(all);
	free(one);
	free(big);
}

/* max_events: stops, closes the open slices, says so. */
static void test_max_events(struct prog *p)
{
	struct spoor_timeline_config cfg;
	struct spoor_timeline_stats st;
	uint64_t n[6];
	char *json;

	spoor_timeline_config_init(&cfg);
	cfg.max_events = 6;	/* 3 metadata, 3 B */
	json = run_scenario(p, &cfg, n, &st);
	CHECK_EQ(check_shape(json), 3);
	CHECK(st.truncated);
	CHECK_EQ(st.events, 9);
	CHECK_EQ(count(json, "\"left\":\"limit\""), 2);	/* the third returned before */
	CHECK_EQ(count(json, "\"left\":\"return\""), 1);
	CHECK(strstr(json, "\"truncated\":true") != NULL);
	CHECK_EQ(count(json, "exception"), 0);
	free(json);
}

/* Timestamps: the axis is the ticks, still non-decreasing per track. */
static void test_time(struct prog *p)
{
	FILE *f = tmpfile();
	struct spoor_sink *s = spoor_timeline_new(p->funcs, f, NULL);
	struct spoor_event tm = { .kind = SPOOR_EV_TIME, .time = 1000 };
	struct spoor_timeline_stats st;
	uint64_t n[6];
	char *json;

	event(s, 0, tm);
	scenario(p, s, 0, n);
	tm.time = 400;		/* a clock going back changes nothing */
	event(s, 0, tm);
	tm.time = 2500;
	event(s, 0, tm);
	CHECK_EQ(spoor_timeline_finish(s), 0);
	CHECK_EQ(spoor_timeline_stats(s, &st, sizeof(st)), 0);
	CHECK_EQ(st.axis, SPOOR_TL_AXIS_TIME);
	json = slurp(f);
	CHECK_EQ(check_shape(json), 4);
	CHECK(has_event(json, "fib", "B", 0, 1000));
	CHECK(has_event(json, "fib", "E", 0, 2500));
	CHECK(strstr(json, "\"time_axis\":\"timestamps\"") != NULL);
	CHECK(strstr(json, "time axis: timestamp ticks") != NULL);
	free(json);
	spoor_sink_free(s);
	fclose(f);
}

/* Gaps, stops, restarts and two harts. */
static void test_events(struct prog *p)
{
	FILE *f = tmpfile();
	struct spoor_sink *s = spoor_timeline_new(p->funcs, f, NULL);
	struct spoor_event gap = { .kind = SPOOR_EV_GAP, .reason = SPOOR_E_TRACE,
				   .address = 0x80000010 };
	struct spoor_event sync = { .kind = SPOOR_EV_SYNC, .address = p->fib };
	struct spoor_event stop = { .kind = SPOOR_EV_STOP };
	struct spoor_event start = { .kind = SPOOR_EV_START };
	struct spoor_event intr = { .kind = SPOOR_EV_TRAP, .interrupt = true, .cause = 7 };
	struct spoor_timeline_stats st;
	uint64_t n[6];
	char *json, want[128];

	event(s, 3, start);
	scenario(p, s, 3, n);
	scenario(p, s, 0, n);
	event(s, 0, gap);	/* ends hart 0's stack */
	event(s, 0, sync);
	event(s, 3, intr);	/* no handler follows: written at the next event */
	event(s, 3, stop);
	spoor_sink_restart(s);
	scenario(p, s, 0, n);
	CHECK_EQ(spoor_timeline_finish(s), 0);
	CHECK_EQ(spoor_timeline_stats(s, &st, sizeof(st)), 0);
	json = slurp(f);
	CHECK_EQ(check_shape(json), 12);
	CHECK_EQ(st.traps, 4);
	CHECK_EQ(st.gaps, 1);
	snprintf(want, sizeof(want), "\"name\":\"gap: %s\"", spoor_errstr(SPOOR_E_TRACE));
	CHECK(strstr(json, want) != NULL);
	CHECK(strstr(json, "\"args\":{\"pc\":\"0x80000010\"}") != NULL);
	CHECK_EQ(count(json, "\"name\":\"resynchronised\""), 1);
	CHECK_EQ(count(json, "\"name\":\"interrupt 7 (machine timer)\",\"cat\":\"interrupt\""), 1);
	CHECK_EQ(count(json, "\"name\":\"trace stopped\""), 1);
	CHECK_EQ(count(json, "\"name\":\"trace started\""), 1);
	CHECK_EQ(count(json, "\"name\":\"next input\""), 2);
	CHECK(strstr(json, "\"args\":{\"name\":\"hart 3 \xe2\x80\x94") != NULL);
	CHECK(strstr(json, "\"args\":{\"name\":\"hart 0 \xe2\x80\x94") != NULL);
	free(json);
	spoor_sink_free(s);
	fclose(f);
}

/* Names are escaped: quotes, backslashes, control bytes, bytes that are not UTF-8. */
static void test_escape(struct prog *p)
{
	struct spoor_timeline_config cfg;
	FILE *f = tmpfile();
	struct spoor_sink *s;
	char *json;

	spoor_timeline_config_init(&cfg);
	cfg.process_name = "dir/a\"b\\c\x01\xff\xc3\xa9\xed\xa0\x80";
	s = spoor_timeline_new(p->funcs, f, &cfg);
	CHECK_EQ(spoor_timeline_finish(s), 0);
	json = slurp(f);
	CHECK(strstr(json, "\"a\\\"b\\\\c\\u0001\\ufffd\xc3\xa9\\ufffd\\ufffd\\ufffd \xe2\x80\x94") != NULL);
	free(json);
	spoor_sink_free(s);
	fclose(f);
}

/* A failed write: the sink's error, finish says SPOOR_E_IO. */
static void test_write_error(struct prog *p)
{
	FILE *f = fopen("/dev/full", "w");
	struct spoor_sink *s;
	uint64_t n[6];

	if (!f)
		return;
	s = spoor_timeline_new(p->funcs, f, NULL);
	for (int i = 0; i < 200; i++)
		scenario(p, s, 0, n);
	CHECK_EQ(spoor_sink_error(s), SPOOR_E_IO);
	CHECK_EQ(spoor_timeline_finish(s), SPOOR_E_IO);
	spoor_sink_free(s);
	fclose(f);
	f = fopen("/dev/full", "w");
	s = spoor_timeline_new(p->funcs, f, NULL);
	scenario(p, s, 0, n);	/* still in the buffer */
	CHECK_EQ(spoor_timeline_finish(s), SPOOR_E_IO);
	spoor_sink_free(s);
	fclose(f);
}

/*
 * Out of memory at each allocation of the sink in turn (on two harts, then
 * a restart): the sink says SPOOR_E_NOMEM, and the file is complete with
 * every "E" naming its "B", however far the call stacks moved on after the
 * failure.
 */
static void test_nomem(struct prog *p)
{
	static char vbuf[1 << 16];	/* the stream's own buffer: not allocated */
	bool failed = true;

	if (!FAIL_ALLOC)
		return;		/* (the sanitizers' allocator is not replaced) */
	for (long k = 0; failed && k < 1000; k++) {
		FILE *f = tmpfile();
		struct spoor_funcs *funcs = spoor_funcs_new(p->img);
		struct spoor_sink *s;
		uint64_t n[6];
		char *json;
		int ret;

		if (!f || !funcs)
			return;
		setvbuf(f, vbuf, _IOFBF, sizeof(vbuf));
		s = spoor_timeline_new(funcs, f, NULL);
		alloc_fail = k;
		scenario(p, s, 0, n);
		scenario(p, s, 1, n);
		spoor_sink_restart(s);
		scenario(p, s, 0, n);
		failed = alloc_fail < 0;
		alloc_fail = -1;
		CHECK_EQ(spoor_sink_error(s), failed ? SPOOR_E_NOMEM : 0);
		ret = spoor_timeline_finish(s);
		CHECK_EQ(ret, failed ? SPOOR_E_NOMEM : 0);
		json = slurp(f);
		CHECK(json && check_shape(json) <= 3 * 4);
		free(json);
		spoor_sink_free(s);
		spoor_funcs_free(funcs);
		fclose(f);
	}
	CHECK(!failed);		/* it came to a run with every allocation there */
}

int main(int argc, char **argv)
{
	struct prog p;

	check_args(argc, argv, "The timeline sink on synthetic blocks of recursion.elf: slices, "
		   "instants, ts, limits, escaping, write errors.");
	if (!prog_load(&p, ISS_RECURSION_RV64)) {
		fprintf(stderr, "cannot load %s or find fib's calls and an mret\n",
			ISS_RECURSION_RV64);
		return 1;
	}
	test_args(&p);
	test_empty(&p);
	test_slices(&p);
	test_min_insns(&p);
	test_max_events(&p);
	test_time(&p);
	test_events(&p);
	test_escape(&p);
	test_write_error(&p);
	test_nomem(&p);
	prog_free(&p);
	if (prog_load(&p, ISS_RECURSION_RV32)) {
		test_slices(&p);
		test_min_insns(&p);
	} else {
		CHECK(!"recursion.elf rv32 loads");
	}
	prog_free(&p);
	return check_done();
}
