// SPDX-License-Identifier: MIT
/*
 * The timeline sink: call stacks (callstack.h) and trace events as
 * Chrome/Perfetto trace-event JSON, written as they happen (see timeline.h).
 *
 * Each hart has a track (tid = source).  A frame's "B" is written when the
 * frame is entered, or with min_insns once it has lasted that many
 * instructions; its "E" when it is left, if its "B" was written.  The
 * frames of a hart's stack below "committed" have their "B" written, the
 * ones above are pending: the call stack itself is the pending buffer, so
 * it is bounded by the stack depth.  Each hart keeps the name and kind of
 * every "B" written and not yet closed (its "open" stack, as deep as the
 * call stack at most), and every "E" is written from there: an "E" always
 * names its "B", even when the call stack moved on without the sink (after
 * an error part way through a batch of blocks).
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "json_str.h"
#include "spoor/callstack.h"
#include "spoor/error.h"
#include "spoor/timeline.h"

/* A "B" written and not closed yet: what its "E" says. */
struct tl_open {
	const char *name;	/* escaped (the names cache's, or a literal) */
	uint8_t kind;		/* enum spoor_cs_kind */
};

struct tl_hart {
	uint32_t source;
	uint64_t last_ts;	/* the last ts written on its track */
	unsigned committed;	/* stack frames [0, committed) have their "B" written */
	struct tl_open *open;	/* their names and kinds, [0, committed) */
	unsigned open_cap;
	bool named;		/* its thread_name is written */
	bool after_gap;		/* a gap came: the next sync is an instant */
	bool trap_pending;	/* a trap event waits for its handler frame */
	struct spoor_event trap;
};

struct spoor_timeline {
	struct spoor_sink sink;		/* first: the sink is the timeline */
	struct spoor_funcs *funcs;
	struct spoor_callstack *cs;
	FILE *out;
	char *process;			/* the process name (not escaped) */
	uint64_t min_insns, max_events;
	uint8_t axis;			/* enum spoor_tl_axis; AUTO until decided */
	bool seen_time;			/* an EV_TIME came */
	bool header;			/* "{"traceEvents":[" written */
	bool limited;			/* max_events reached: no new "B" or instant */
	bool stopped;			/* every slice closed after the limit: nothing more */
	bool finished;
	int io_errno;			/* errno of the first failed write */
	struct tl_hart *harts;
	size_t nharts, last;
	char **names;			/* escaped function names, by spoor_funcs number */
	size_t nnames;
	struct spoor_timeline_stats stats;
};

static const struct spoor_sink_ops timeline_ops;

/* The trap causes of the privileged spec (mcause), exceptions then interrupts. */
static const char *const exception_names[] = {
	[0] = "instruction address misaligned", [1] = "instruction access fault",
	[2] = "illegal instruction", [3] = "breakpoint", [4] = "load address misaligned",
	[5] = "load access fault", [6] = "store/AMO address misaligned",
	[7] = "store/AMO access fault", [8] = "environment call from U-mode",
	[9] = "environment call from S-mode", [11] = "environment call from M-mode",
	[12] = "instruction page fault", [13] = "load page fault",
	[15] = "store/AMO page fault", [18] = "software check", [19] = "hardware error",
};

static const char *const interrupt_names[] = {
	[1] = "supervisor software", [3] = "machine software", [5] = "supervisor timer",
	[7] = "machine timer", [9] = "supervisor external", [11] = "machine external",
	[13] = "counter overflow",
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

const char *spoor_timeline_cause_name(uint64_t cause, bool interrupt)
{
	if (interrupt)
		return cause < ARRAY_SIZE(interrupt_names) ? interrupt_names[cause] : NULL;
	return cause < ARRAY_SIZE(exception_names) ? exception_names[cause] : NULL;
}

void spoor_timeline_config_init(struct spoor_timeline_config *cfg)
{
	if (cfg)
		memset(cfg, 0, sizeof(*cfg));
}

/* Returns the timeline behind @s, or NULL when @s is not one. */
static struct spoor_timeline *to_tl(const struct spoor_sink *s)
{
	return s && s->ops == &timeline_ops ? (struct spoor_timeline *)s : NULL;
}

/* Returns the escaped name of function @func (cached), or NULL (no memory). */
static const char *func_name(struct spoor_timeline *tl, uint32_t func)
{
	const struct spoor_func *fn;

	if (func >= tl->nnames) {
		size_t n = spoor_funcs_count(tl->funcs);
		char **names;

		if (n <= func)
			n = (size_t)func + 1;
		names = realloc(tl->names, n * sizeof(*names));
		if (!names)
			return NULL;
		memset(names + tl->nnames, 0, (n - tl->nnames) * sizeof(*names));
		tl->names = names;
		tl->nnames = n;
	}
	if (!tl->names[func]) {
		fn = spoor_funcs_get(tl->funcs, func);
		tl->names[func] = json_str_escape(fn && fn->name ? fn->name : "?");
	}
	return tl->names[func];
}

/* Records the first error (a negative spoor_error) the sink hit. */
static void set_error(struct spoor_timeline *tl, int err)
{
	if (!tl->sink.error)
		tl->sink.error = err;
}

/* Returns true while the sink still writes: no error, not stopped or finished. */
static bool alive(const struct spoor_timeline *tl)
{
	return !tl->sink.error && !tl->stopped && !tl->finished;
}

/* Starts the next event: the file's head or a separator; counts it. */
static void open_event(struct spoor_timeline *tl)
{
	if (!tl->header) {
		fputs("{\"traceEvents\":[\n", tl->out);
		tl->header = true;
	} else {
		fputs(",\n", tl->out);
	}
	tl->stats.events++;
	if (tl->max_events && tl->stats.events >= tl->max_events)
		tl->limited = true;
}

/* The words the names give for the time axis. */
static const char *axis_words(const struct spoor_timeline *tl)
{
	return tl->axis == SPOOR_TL_AXIS_TIME ?
	       "time axis: timestamp ticks (1 \xc2\xb5s = 1 tick)" :
	       "time axis: retired instructions (1 \xc2\xb5s = 1 instruction)";
}

/* Writes the thread_name and thread_sort_index metadata of @h. */
static void name_hart(struct spoor_timeline *tl, struct tl_hart *h)
{
	open_event(tl);
	fprintf(tl->out, "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":%" PRIu32
		",\"args\":{\"name\":\"hart %" PRIu32 " \xe2\x80\x94 %s\"}}",
		h->source, h->source, axis_words(tl));
	open_event(tl);
	fprintf(tl->out, "{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":1,\"tid\":%" PRIu32
		",\"args\":{\"sort_index\":%" PRIu32 "}}", h->source, h->source);
	h->named = true;
}

/* Settles the time axis (AUTO: timestamps if any came) and names the process and harts. */
static void decide_axis(struct spoor_timeline *tl)
{
	if (tl->axis != SPOOR_TL_AXIS_AUTO)
		return;
	tl->axis = tl->seen_time ? SPOOR_TL_AXIS_TIME : SPOOR_TL_AXIS_INSNS;
	tl->stats.axis = tl->axis;
	open_event(tl);
	fputs("{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"tid\":0,\"args\":{\"name\":",
	      tl->out);
	fputs("\"", tl->out);
	if (tl->process[0])
		fprintf(tl->out, "%s \xe2\x80\x94 ", tl->process);
	fprintf(tl->out, "%s\"}}", axis_words(tl));
	for (size_t i = 0; i < tl->nharts; i++)
		if (!tl->harts[i].named)
			name_hart(tl, &tl->harts[i]);
}

/* Returns the track of @source, made (and named) on first sight; NULL when out of memory. */
static struct tl_hart *hart_get(struct spoor_timeline *tl, uint32_t source)
{
	struct tl_hart *h;

	if (tl->last < tl->nharts && tl->harts[tl->last].source == source)
		return &tl->harts[tl->last];
	for (size_t i = 0; i < tl->nharts; i++) {
		if (tl->harts[i].source == source) {
			tl->last = i;
			return &tl->harts[i];
		}
	}
	h = realloc(tl->harts, (tl->nharts + 1) * sizeof(*h));
	if (!h) {
		set_error(tl, SPOOR_E_NOMEM);
		return NULL;
	}
	tl->harts = h;
	h = &tl->harts[tl->nharts];
	memset(h, 0, sizeof(*h));
	h->source = source;
	tl->last = tl->nharts++;
	if (tl->axis != SPOOR_TL_AXIS_AUTO)
		name_hart(tl, h);
	return h;
}

/* Returns the ts of clock (@insns, @time) on @h's track: never below its last one. */
static uint64_t track_ts(const struct spoor_timeline *tl, struct tl_hart *h, uint64_t insns,
			 uint64_t time)
{
	uint64_t ts = tl->axis == SPOOR_TL_AXIS_TIME ? time : insns;

	if (tl->axis == SPOOR_TL_AXIS_AUTO)
		ts = 0;		/* nothing retired and no timestamp yet */
	if (ts < h->last_ts)
		ts = h->last_ts;
	h->last_ts = ts;
	return ts;
}

/* Returns the ts of @h's clock now; *@insns (maybe NULL) gets its instruction count. */
static uint64_t now_ts(struct spoor_timeline *tl, struct tl_hart *h, uint64_t *insns)
{
	uint64_t n = 0, t = 0;

	spoor_callstack_clock(tl->cs, h->source, &n, &t, NULL);
	if (insns)
		*insns = n;
	return track_ts(tl, h, n, t);
}

/*
 * Writes the "B" of frame @fr on @h's track and pushes it on the hart's
 * open stack; returns false (nothing written, the sink's error set) when
 * out of memory.
 */
static bool write_begin(struct spoor_timeline *tl, struct tl_hart *h,
			const struct spoor_cs_frame *fr)
{
	const char *name = func_name(tl, fr->func);
	const struct spoor_func *fn = spoor_funcs_get(tl->funcs, fr->func);
	uint64_t ts;

	if (name && h->committed == h->open_cap) {
		unsigned cap = h->open_cap ? 2 * h->open_cap : 16;
		struct tl_open *o = realloc(h->open, cap * sizeof(*o));

		if (!o) {
			name = NULL;
		} else {
			h->open = o;
			h->open_cap = cap;
		}
	}
	if (!name) {
		set_error(tl, SPOOR_E_NOMEM);
		return false;
	}
	h->open[h->committed++] = (struct tl_open){ .name = name, .kind = fr->kind };
	ts = track_ts(tl, h, fr->insns, fr->time);
	open_event(tl);
	fprintf(tl->out, "{\"name\":\"%s\",\"cat\":\"%s\",\"ph\":\"B\",\"pid\":1,\"tid\":%" PRIu32
		",\"ts\":%" PRIu64 ",\"args\":{\"addr\":\"0x%" PRIx64 "\",\"site\":\"0x%" PRIx64 "\"",
		name, spoor_cs_kind_name(fr->kind), h->source, ts, fn ? fn->start : 0, fr->site);
	if (fr->kind == SPOOR_CS_TRAP || fr->kind == SPOOR_CS_INTERRUPT)
		fprintf(tl->out, ",\"cause\":%" PRIu64, fr->cause);
	fputs("}}", tl->out);
	return true;
}

/* Writes the "E" of the innermost open slice of @h (popped), left for @why. */
static void write_end(struct spoor_timeline *tl, struct tl_hart *h, const char *why)
{
	const struct tl_open *o = &h->open[--h->committed];
	uint64_t ts = now_ts(tl, h, NULL);

	open_event(tl);
	fprintf(tl->out, "{\"name\":\"%s\",\"cat\":\"%s\",\"ph\":\"E\",\"pid\":1,\"tid\":%" PRIu32
		",\"ts\":%" PRIu64 ",\"args\":{\"left\":\"%s\"}}",
		o->name, spoor_cs_kind_name(o->kind), h->source, ts, why);
	tl->stats.slices++;
}

/* Writes the "B" of frames [committed, @upto) of @h's @stack (fewer when out of memory). */
static void commit(struct spoor_timeline *tl, struct tl_hart *h,
		   const struct spoor_cs_frame *stack, unsigned upto)
{
	while (h->committed < upto && write_begin(tl, h, &stack[h->committed]))
		;
}

/*
 * Starts an instant event named @name (category @cat) on @h's track, at
 * the entry of frame @at (NULL: the hart's clock now), up to its args'
 * opening brace; returns false when the limit forbids it.  With min_insns
 * the frames below @upto of the hart's stack (all when @upto is UINT_MAX)
 * get their "B" first, however short they turn out: the instant shows in
 * the function it hit, and no "B" comes after it with an earlier ts.
 */
static bool open_instant(struct spoor_timeline *tl, struct tl_hart *h,
			 const struct spoor_cs_frame *at, const char *cat, const char *name,
			 unsigned upto)
{
	const struct spoor_cs_frame *stack;
	unsigned depth;
	uint64_t ts;

	if (tl->limited)
		return false;
	if (tl->min_insns) {
		depth = spoor_callstack_get(tl->cs, h->source, &stack);
		commit(tl, h, stack, upto < depth ? upto : depth);
	}
	ts = at ? track_ts(tl, h, at->insns, at->time) : now_ts(tl, h, NULL);
	open_event(tl);
	fputs("{\"name\":", tl->out);
	json_str_put(tl->out, name);
	fprintf(tl->out, ",\"cat\":\"%s\",\"ph\":\"i\",\"s\":\"t\",\"pid\":1,\"tid\":%" PRIu32
		",\"ts\":%" PRIu64 ",\"args\":{", cat, h->source, ts);
	return true;
}

/*
 * Writes @h's pending trap as an instant: at the entry of its handler frame
 * @at, inside the frames below @upto; NULL @at: now (its handler never came).
 */
static void write_trap(struct spoor_timeline *tl, struct tl_hart *h,
		       const struct spoor_cs_frame *at, unsigned upto)
{
	const struct spoor_event *e = &h->trap;
	const char *what = spoor_timeline_cause_name(e->cause, e->interrupt);
	const char *kind = e->interrupt ? "interrupt" : "exception";
	char name[96];

	h->trap_pending = false;
	if (what)
		snprintf(name, sizeof(name), "%s %" PRIu64 " (%s)", kind, e->cause, what);
	else
		snprintf(name, sizeof(name), "%s %" PRIu64, kind, e->cause);
	if (!open_instant(tl, h, at, kind, name, upto))
		return;
	fprintf(tl->out, "\"cause\":%" PRIu64, e->cause);
	if (e->has_epc)
		fprintf(tl->out, ",\"epc\":\"0x%" PRIx64 "\"", e->epc);
	if (!e->interrupt)
		fprintf(tl->out, ",\"tval\":\"0x%" PRIx64 "\"", e->tval);
	if (e->address)
		fprintf(tl->out, ",\"handler\":\"0x%" PRIx64 "\"", e->address);
	fputs("}}", tl->out);
	tl->stats.traps++;
}

/* Writes @h's pending trap, if any, at its clock now: its handler never came. */
static void flush_trap(struct spoor_timeline *tl, struct tl_hart *h)
{
	if (h->trap_pending)
		write_trap(tl, h, NULL, UINT_MAX);
}

/* Writes a plain instant (@name, @cat) at @h's clock now, with a pc arg when @pc. */
static void write_mark(struct spoor_timeline *tl, struct tl_hart *h, const char *cat,
		       const char *name, uint64_t pc)
{
	if (!open_instant(tl, h, NULL, cat, name, UINT_MAX))
		return;
	if (pc)
		fprintf(tl->out, "\"pc\":\"0x%" PRIx64 "\"", pc);
	fputs("}}", tl->out);
}

/* Callstack: a frame was entered. */
static void cb_enter(void *ctx, uint32_t source, const struct spoor_cs_frame *stack,
		     unsigned depth)
{
	struct spoor_timeline *tl = ctx;
	const struct spoor_cs_frame *fr = &stack[depth - 1];
	struct tl_hart *h;

	if (!alive(tl))
		return;
	h = hart_get(tl, source);
	if (!h)
		return;
	if (h->trap_pending && (fr->kind == SPOOR_CS_TRAP || fr->kind == SPOOR_CS_INTERRUPT))
		write_trap(tl, h, fr, depth - 1);
	if (!tl->min_insns && !tl->limited && h->committed + 1 == depth)
		write_begin(tl, h, fr);
}

/* Callstack: a frame is being left. */
static void cb_leave(void *ctx, uint32_t source, const struct spoor_cs_frame *stack,
		     unsigned depth, enum spoor_cs_leave why)
{
	struct spoor_timeline *tl = ctx;
	struct tl_hart *h;
	uint64_t insns;

	if (!alive(tl))
		return;
	h = hart_get(tl, source);
	if (!h)
		return;
	if (depth > h->committed) {
		spoor_callstack_clock(tl->cs, source, &insns, NULL, NULL);
		if (!tl->min_insns || tl->limited ||
		    insns - stack[depth - 1].insns < tl->min_insns) {
			tl->stats.dropped++;
			return;
		}
		commit(tl, h, stack, depth);
		if (h->committed < depth)
			return;		/* out of memory */
	}
	/* (The frames leave innermost first: this is the innermost open slice.) */
	write_end(tl, h, spoor_cs_leave_name(why));
}

/* Callstack (min_insns only): a block retired; writes the "B" of frames now long enough. */
static void cb_insns(void *ctx, uint32_t source, const struct spoor_cs_frame *stack,
		     unsigned depth, const struct spoor_block *b,
		     const struct spoor_block_info *bi)
{
	struct spoor_timeline *tl = ctx;
	struct tl_hart *h;
	uint64_t now;
	unsigned k;

	(void)bi;
	if (!alive(tl) || tl->limited)
		return;
	h = hart_get(tl, source);
	if (!h || depth <= h->committed)
		return;
	spoor_callstack_clock(tl->cs, source, &now, NULL, NULL);
	now += b->ninsn;
	if (now - stack[h->committed].insns < tl->min_insns)
		return;
	for (k = depth; now - stack[k - 1].insns < tl->min_insns; k--)
		;
	commit(tl, h, stack, k);
}

/*
 * Closes every written slice of every hart, innermost first, from the
 * harts' open stacks (whatever the call stacks hold now).
 */
static void close_all(struct spoor_timeline *tl, const char *why)
{
	for (size_t i = 0; i < tl->nharts; i++) {
		struct tl_hart *h = &tl->harts[i];

		while (h->committed > 0)
			write_end(tl, h, why);
	}
}

/* After each call of the sink: a failed write, the limit. */
static void after(struct spoor_timeline *tl)
{
	if (!tl->sink.error && ferror(tl->out)) {
		tl->io_errno = errno ? errno : EIO;
		set_error(tl, SPOOR_E_IO);
	}
	if (tl->limited && !tl->stopped && !tl->sink.error) {
		for (size_t i = 0; i < tl->nharts; i++)
			tl->harts[i].trap_pending = false;
		close_all(tl, "limit");
		tl->stopped = true;
		tl->stats.truncated = true;
	}
}

/* Sink: blocks of one hart. */
static void tl_blocks(struct spoor_sink *s, uint32_t source, const struct spoor_block *b,
		      size_t n)
{
	struct spoor_timeline *tl = to_tl(s);
	int ret;

	if (!tl || !alive(tl))
		return;
	decide_axis(tl);
	ret = spoor_callstack_blocks(tl->cs, source, b, n);
	if (ret)
		set_error(tl, ret);
	after(tl);
}

/* Sink: an event of one hart. */
static void tl_event(struct spoor_sink *s, const struct spoor_dec_item *it)
{
	struct spoor_timeline *tl = to_tl(s);
	const struct spoor_event *e = &it->event;
	struct tl_hart *h;
	char name[96];
	int ret;

	if (!tl || !alive(tl) || it->kind != SPOOR_DEC_EVENT)
		return;
	if (e->kind == SPOOR_EV_TIME) {
		tl->seen_time = true;
		decide_axis(tl);
	}
	h = hart_get(tl, it->source);
	if (!h)
		return;
	if (e->kind == SPOOR_EV_TRAP || e->kind == SPOOR_EV_GAP || e->kind == SPOOR_EV_LOST ||
	    e->kind == SPOOR_EV_STOP)
		flush_trap(tl, h);
	ret = spoor_callstack_event(tl->cs, it);
	if (ret) {
		set_error(tl, ret);
		after(tl);
		return;
	}
	h = hart_get(tl, it->source);	/* the callbacks may have moved it */
	if (!h)
		return;
	switch (e->kind) {
	case SPOOR_EV_TRAP:
		h->trap_pending = true;
		h->trap = *e;
		break;
	case SPOOR_EV_GAP:
		snprintf(name, sizeof(name), "gap: %s", spoor_errstr(e->reason));
		write_mark(tl, h, "gap", name, e->address);
		tl->stats.gaps++;
		h->after_gap = true;
		break;
	case SPOOR_EV_LOST:
		write_mark(tl, h, "gap", "gap: the encoder lost packets", 0);
		tl->stats.gaps++;
		h->after_gap = true;
		break;
	case SPOOR_EV_STOP:
		write_mark(tl, h, "trace", "trace stopped", 0);
		break;
	case SPOOR_EV_START:
		write_mark(tl, h, "trace", "trace started", 0);
		break;
	case SPOOR_EV_SYNC:
		if (h->after_gap)
			write_mark(tl, h, "trace", "resynchronised", e->address);
		h->after_gap = false;
		break;
	default:
		break;
	}
	after(tl);
}

/* Sink: the next input is another trace. */
static void tl_restart(struct spoor_sink *s)
{
	struct spoor_timeline *tl = to_tl(s);

	if (!tl || !alive(tl))
		return;
	for (size_t i = 0; i < tl->nharts; i++)
		flush_trap(tl, &tl->harts[i]);
	spoor_callstack_reset(tl->cs);
	for (size_t i = 0; i < tl->nharts; i++) {
		write_mark(tl, &tl->harts[i], "trace", "next input", 0);
		tl->harts[i].after_gap = false;
	}
	after(tl);
}

/* Sink: frees the timeline (not its output). */
static void tl_free(struct spoor_sink *s)
{
	struct spoor_timeline *tl = to_tl(s);

	if (!tl)
		return;
	spoor_callstack_free(tl->cs);
	for (size_t i = 0; i < tl->nnames; i++)
		free(tl->names[i]);
	free(tl->names);
	for (size_t i = 0; i < tl->nharts; i++)
		free(tl->harts[i].open);
	free(tl->harts);
	free(tl->process);
	free(tl);
}

static const struct spoor_sink_ops timeline_ops = {
	.name = "timeline",
	.blocks = tl_blocks,
	.event = tl_event,
	.restart = tl_restart,
	.free = tl_free,
};

/* Returns the last path component of @path. */
static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

struct spoor_sink *spoor_timeline_new(struct spoor_funcs *funcs, FILE *out,
				      const struct spoor_timeline_config *cfg)
{
	static const struct spoor_callstack_ops cs_ops = { .enter = cb_enter, .leave = cb_leave };
	static const struct spoor_callstack_ops cs_ops_min = {
		.enter = cb_enter, .leave = cb_leave, .insns = cb_insns,
	};
	struct spoor_timeline_config def;
	struct spoor_callstack_config cc = { 0 };
	struct spoor_timeline *tl;
	const char *pname;

	if (!cfg) {
		spoor_timeline_config_init(&def);
		cfg = &def;
	}
	if (!funcs || !out || cfg->axis > SPOOR_TL_AXIS_TIME)
		return NULL;
	tl = calloc(1, sizeof(*tl));
	if (!tl)
		return NULL;
	tl->sink.ops = &timeline_ops;
	tl->funcs = funcs;
	tl->out = out;
	tl->min_insns = cfg->min_insns;
	tl->max_events = cfg->max_events;
	tl->axis = cfg->axis;
	tl->stats.axis = cfg->axis;
	pname = cfg->process_name;
	if (!pname)
		pname = spoor_image_elf_name(spoor_funcs_image(funcs));
	tl->process = json_str_escape(pname ? base_name(pname) : "");
	cc.funcs = funcs;
	cc.max_depth = cfg->max_depth;
	cc.ops = tl->min_insns ? &cs_ops_min : &cs_ops;
	cc.ctx = tl;
	tl->cs = spoor_callstack_new(&cc);
	if (!tl->process || !tl->cs)
		goto fail;
	if (tl->axis != SPOOR_TL_AXIS_AUTO) {
		/* decided already: name the process now */
		tl->axis = SPOOR_TL_AXIS_AUTO;
		tl->seen_time = cfg->axis == SPOOR_TL_AXIS_TIME;
		decide_axis(tl);
	}
	return &tl->sink;
fail:
	tl_free(&tl->sink);
	return NULL;
}

int spoor_timeline_finish(struct spoor_sink *s)
{
	struct spoor_timeline *tl = to_tl(s);

	if (!tl || tl->finished)
		return SPOOR_E_INVAL;
	if (!tl->sink.error || tl->sink.error == SPOOR_E_NOMEM) {
		decide_axis(tl);
		if (!tl->stopped) {
			for (size_t i = 0; i < tl->nharts; i++)
				flush_trap(tl, &tl->harts[i]);
			tl->limited = false;	/* the closing "E"s are always written */
			tl->stopped = false;
			if (tl->sink.error) {	/* out of memory: close what was written */
				close_all(tl, "reset");
			} else {
				spoor_callstack_reset(tl->cs);
			}
		}
		if (!tl->header)
			fputs("{\"traceEvents\":[", tl->out);
		fprintf(tl->out, "\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{"
			"\"tool\":\"spoor timeline\",\"time_axis\":\"%s\",\"process\":\"%s\","
			"\"events\":%" PRIu64 ",\"slices\":%" PRIu64 ",\"dropped_slices\":%" PRIu64
			",\"min_insns\":%" PRIu64 ",\"max_events\":%" PRIu64 ",\"truncated\":%s}}\n",
			tl->axis == SPOOR_TL_AXIS_TIME ? "timestamps" : "instructions", tl->process,
			tl->stats.events, tl->stats.slices, tl->stats.dropped, tl->min_insns,
			tl->max_events, tl->stats.truncated ? "true" : "false");
		tl->header = true;
		if (fflush(tl->out) || ferror(tl->out)) {
			tl->io_errno = errno ? errno : EIO;
			set_error(tl, SPOOR_E_IO);
		}
	}
	tl->finished = true;
	if (tl->sink.error == SPOOR_E_IO)
		errno = tl->io_errno;
	return tl->sink.error;
}

int spoor_timeline_stats(const struct spoor_sink *s, struct spoor_timeline_stats *st,
			 size_t size)
{
	const struct spoor_timeline *tl = to_tl(s);

	if (!tl || !st || !size)
		return SPOOR_E_INVAL;
	if (size > sizeof(tl->stats))
		size = sizeof(tl->stats);
	memcpy(st, &tl->stats, size);
	return 0;
}
