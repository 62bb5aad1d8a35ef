// SPDX-License-Identifier: MIT
/* Unit tests for the streaming deframer (deframe.c): conformance vectors and corrupted copies. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "rng.h"
#include "spoor/deframe.h"
#include "spoor/encap.h"
#include "spoor/error.h"

static const char *const stems[] = {
	"br_j_asm", "embench-statemate", "test_discon_branch_exception", "towers",
};
#define N_STEMS (sizeof(stems) / sizeof(stems[0]))

/* Returns the contents of @path (length in *@len), or NULL. */
static uint8_t *read_file(const char *path, size_t *len)
{
	uint8_t *buf = NULL;
	FILE *f = fopen(path, "rb");
	long size;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET))
		goto out;
	buf = malloc((size_t)size + 1);
	if (buf && fread(buf, 1, (size_t)size, f) != (size_t)size) {
		free(buf);
		buf = NULL;
	}
	*len = (size_t)size;
out:
	fclose(f);
	return buf;
}

/* One deframer item, flattened so that runs can be compared with memcmp. */
struct rec {
	uint64_t offset, bytes, timestamp;
	int kind, reason;
	uint32_t source, size, payload_len;
	uint8_t msg, flow, type, has_timestamp;
	uint8_t payload[SPOOR_FRAME_PAYLOAD_MAX + 1];
};

struct run {
	struct rec *recs;
	size_t n, cap;
	struct spoor_deframe_stats st;
	unsigned invariant_bad;	/* stats checks that failed */
	unsigned next_bad;	/* next() errors */
};

/*
 * Reads the bytes a decoder may load of @fr's payload_room (its first 16
 * and its last): the sanitizer build checks that they are readable.
 */
static void touch_room(const struct spoor_frame *fr)
{
	volatile uint8_t sum = 0;

	for (uint32_t i = 0; i < fr->payload_room && i < 16; i++)
		sum = (uint8_t)(sum + fr->payload[i]);
	if (fr->payload_room)
		sum = (uint8_t)(sum + fr->payload[fr->payload_room - 1]);
	(void)sum;
}

/* Fills @x from @it. */
static void fill_rec(struct rec *x, const struct spoor_deframe_item *it)
{
	memset(x, 0, sizeof(*x));
	x->kind = it->kind;
	x->offset = it->offset;
	x->bytes = it->bytes;
	x->reason = it->reason;
	x->source = it->source;
	if (it->kind != SPOOR_DF_FRAME)
		return;
	x->size = it->frame.size;
	x->payload_len = it->frame.payload_len;
	x->msg = it->frame.msg;
	x->flow = it->frame.flow;
	x->type = it->frame.type;
	x->has_timestamp = it->frame.has_timestamp;
	x->timestamp = it->frame.timestamp;
	touch_room(&it->frame);
	if (it->frame.offset != it->offset || it->frame.source != it->source ||
	    it->frame.payload_len > SPOOR_FRAME_PAYLOAD_MAX || !it->frame.payload_len ||
	    it->frame.payload_room < it->frame.payload_len)
		x->kind = -1;	/* inconsistent item: never equal to a good one */
	else
		memcpy(x->payload, it->frame.payload, it->frame.payload_len);
}

/* Appends the record of @it to @r. */
static void add_rec(struct run *r, const struct spoor_deframe_item *it)
{
	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 256;
		r->recs = realloc(r->recs, r->cap * sizeof(*r->recs));
		if (!r->recs)
			abort();
	}
	fill_rec(&r->recs[r->n++], it);
}

/* Returns true when @df's counters account for every byte fed. */
static bool invariant_holds(const struct spoor_deframe *df)
{
	struct spoor_deframe_stats s;

	if (spoor_deframe_stats(df, &s, sizeof(s)))
		return false;
	return s.frame_bytes + s.null_bytes + s.skipped_bytes + s.truncated_bytes +
	       s.pending_bytes == s.bytes;
}

/* When set, drain() takes everything through spoor_deframe_drain(). */
static bool use_drain;

/* Records @n frames as items. */
static void rec_frames(struct run *r, const struct spoor_frame *frames, size_t n)
{
	struct spoor_deframe_item it;

	for (size_t i = 0; i < n; i++) {
		memset(&it, 0, sizeof(it));
		it.kind = SPOOR_DF_FRAME;
		it.offset = frames[i].offset;
		it.source = frames[i].source;
		it.frame = frames[i];
		add_rec(r, &it);
	}
}

/* spoor_deframe_drain()'s callbacks: record what it hands on. */
static void drained_frames(void *ctx, const struct spoor_frame *frames, size_t n)
{
	if (!n || n > SPOOR_DEFRAME_BATCH)
		((struct run *)ctx)->next_bad++;
	rec_frames(ctx, frames, n);
}

static void drained_item(void *ctx, const struct spoor_deframe_item *it)
{
	add_rec(ctx, it);
}

/* When set, drain() takes frames through spoor_deframe_next_frames() too. */
static bool use_batch;

/* Records the frames next_frames() gives, in batches of random size, as items. */
static void drain_batches(struct spoor_deframe *df, struct run *r)
{
	struct spoor_frame frames[8];
	int k;

	do {
		size_t max = 1 + rnd_below(8);

		k = spoor_deframe_next_frames(df, frames, max);
		if (k < 0 || (size_t)k > max) {
			r->next_bad++;
			return;
		}
		rec_frames(r, frames, (size_t)k);
	} while (k > 0 && rnd_below(4));
}

/* Records @df's items until next() returns 0, then checks the counters. */
static void drain(struct spoor_deframe *df, struct run *r)
{
	struct spoor_deframe_item it;
	int ret;

	if (use_drain) {
		if (spoor_deframe_drain(df, drained_frames, drained_item, r))
			r->next_bad++;
		if (!invariant_holds(df))
			r->invariant_bad++;
		return;
	}
	if (use_batch)
		drain_batches(df, r);
	while ((ret = spoor_deframe_next(df, &it, sizeof(it))) > 0) {
		add_rec(r, &it);
		if (use_batch)
			drain_batches(df, r);
	}
	if (ret < 0)
		r->next_bad++;
	if (!invariant_holds(df))
		r->invariant_bad++;
}

/* Returns the next chunk size: @chunk, or random sizes when 0. */
static size_t chunk_size(size_t chunk)
{
	size_t k;

	if (chunk)
		return chunk;
	k = rnd_below(10);
	if (k < 5)
		return 1 + rnd_below(8);
	if (k < 9)
		return 1 + rnd_below(200);
	return 1 + rnd_below(5000);
}

/* Deframes @data[0..@len) under @cfg in chunks of @chunk bytes (0: random) into @r. */
static void run_deframe(const struct spoor_deframe_config *cfg, const uint8_t *data, size_t len,
			size_t chunk, struct run *r)
{
	struct spoor_deframe *df = spoor_deframe_new(cfg);
	size_t pos = 0, n;

	memset(r, 0, sizeof(*r));
	if (!df) {
		r->next_bad++;
		return;
	}
	while (pos < len) {
		n = chunk_size(chunk);
		if (n > len - pos)
			n = len - pos;
		if (spoor_deframe_feed(df, data + pos, n, 0))
			r->next_bad++;
		drain(df, r);
		pos += n;
	}
	if (spoor_deframe_finish(df))
		r->next_bad++;
	drain(df, r);
	spoor_deframe_stats(df, &r->st, sizeof(r->st));
	if (r->st.pending_bytes || r->st.bytes != len)
		r->invariant_bad++;
	spoor_deframe_free(df);
}

static void run_free(struct run *r)
{
	free(r->recs);
	r->recs = NULL;
	r->n = r->cap = 0;
}

/* Returns true when runs @a and @b reported the same items. */
static bool same_items(const struct run *a, const struct run *b)
{
	return a->n == b->n && (!a->n || !memcmp(a->recs, b->recs, a->n * sizeof(*a->recs)));
}

/* Returns how many items of @r are of @kind. */
static size_t count_kind(const struct run *r, int kind)
{
	size_t i, n = 0;

	for (i = 0; i < r->n; i++)
		n += r->recs[i].kind == kind;
	return n;
}

/* Returns true when @r's te_inst frames from @source carry @want's te_inst payloads in order. */
static bool same_payloads(const struct run *r, uint32_t source, const struct run *want)
{
	size_t i = 0, j = 0;

	for (;;) {
		while (i < r->n && (r->recs[i].kind != SPOOR_DF_FRAME ||
				    r->recs[i].source != source ||
				    r->recs[i].msg != SPOOR_MSG_TE_INST))
			i++;
		while (j < want->n && (want->recs[j].kind != SPOOR_DF_FRAME ||
				       want->recs[j].msg != SPOOR_MSG_TE_INST))
			j++;
		if (i == r->n || j == want->n)
			return i == r->n && j == want->n;
		if (r->recs[i].payload_len != want->recs[j].payload_len ||
		    memcmp(r->recs[i].payload, want->recs[j].payload, want->recs[j].payload_len))
			return false;
		i++;
		j++;
	}
}

/* Fills @cfg for E-Trace-Encap with @s srcID bits, @t timestamp bytes and @y type bits. */
static void etrace_config(struct spoor_deframe_config *cfg, unsigned s, unsigned t, unsigned y)
{
	memset(cfg, 0, sizeof(*cfg));
	spoor_encap_config_init(&cfg->encap, SPOOR_ENCAP_ETRACE);
	cfg->encap.src_bits = s;
	cfg->encap.ts_bytes = t;
	cfg->encap.type_bits = y;
	cfg->start_synced = true;
}

/* Fills @cfg for the reference flow's raw stream, synchronised from the start. */
static void raw_config(struct spoor_deframe_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	spoor_encap_config_init(&cfg->encap, SPOOR_ENCAP_RAW);
	cfg->start_synced = true;
}

static const size_t chunk_sizes[] = { 1, 2, 3, 7, 64, 4096, (size_t)-1, 0, 0 };
#define N_CHUNKS (sizeof(chunk_sizes) / sizeof(chunk_sizes[0]))

/* Returns true when every frame of @r decodes the same with spoor_encap_decode() on @data. */
static bool frames_match_decode(const struct spoor_encap_config *ec, const uint8_t *data,
				const struct run *r)
{
	uint8_t scratch[SPOOR_FRAME_PAYLOAD_MAX + 1];
	struct spoor_deframe_item it;
	struct rec x;
	size_t i;

	for (i = 0; i < r->n; i++) {
		if (r->recs[i].kind != SPOOR_DF_FRAME)
			continue;
		memset(&it, 0, sizeof(it));
		it.kind = SPOOR_DF_FRAME;
		it.offset = r->recs[i].offset;
		if (spoor_encap_decode(ec, data + it.offset, r->recs[i].size, &it.frame, scratch))
			return false;
		it.frame.offset = it.offset;
		if (ec->kind == SPOOR_ENCAP_ATB)
			it.frame.source = r->recs[i].source;
		it.source = it.frame.source;
		fill_rec(&x, &it);
		if (memcmp(&x, &r->recs[i], sizeof(x)))
			return false;
	}
	return true;
}

/* Returns @stem's file under SPOOR_VECTORS/@dir with @suffix, read whole (length in *@len). */
static uint8_t *read_vector(const char *dir, const char *stem, const char *suffix, size_t *len)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s/%s%s", SPOOR_VECTORS, dir, stem, suffix);
	return read_file(path, len);
}

/* Checks that @r, a clean run over a stream of @len bytes, lost nothing. */
static void check_clean(const struct run *r, size_t len)
{
	CHECK_EQ(r->invariant_bad, 0);
	CHECK_EQ(r->next_bad, 0);
	CHECK_EQ(r->st.bytes, len);
	CHECK_EQ(r->st.sync_losses, 0);
	CHECK_EQ(r->st.skipped_bytes, 0);
	CHECK_EQ(r->st.truncated_bytes, 0);
	CHECK_EQ(r->st.frames, count_kind(r, SPOOR_DF_FRAME));
	CHECK_EQ(r->st.frame_bytes + r->st.null_bytes, len);
}

/* Checks that every chunking of @data gives the items of @want. */
static void check_chunkings(const struct spoor_deframe_config *cfg, const uint8_t *data, size_t len,
			    const struct run *want)
{
	struct run x;
	size_t i;

	for (i = 0; i < 2 * N_CHUNKS; i++) {
		/* the second round mixes in the batch fast path */
		use_batch = i >= N_CHUNKS;
		run_deframe(cfg, data, len, chunk_sizes[i % N_CHUNKS], &x);
		CHECK(same_items(&x, want));
		CHECK_EQ(x.invariant_bad, 0);
		CHECK(!memcmp(&x.st, &want->st, sizeof(x.st)));
		run_free(&x);
	}
	use_batch = false;
}

/* Checks that a run starting unsynchronised syncs at the first frame and then matches @want. */
static void check_unsynced_start(const struct spoor_deframe_config *synced, const uint8_t *data,
				 size_t len, const struct run *want)
{
	struct spoor_deframe_config cfg = *synced;
	struct run x;

	cfg.start_synced = false;
	run_deframe(&cfg, data, len, 0, &x);
	CHECK(x.n == want->n + 1);
	if (x.n == want->n + 1 && want->n) {
		CHECK_EQ(x.recs[0].kind, SPOOR_DF_SYNC);
		CHECK_EQ(x.recs[0].offset, want->recs[0].offset);
		CHECK_EQ(x.recs[0].bytes, want->recs[0].offset);
		CHECK(!memcmp(x.recs + 1, want->recs, want->n * sizeof(*want->recs)));
	}
	CHECK_EQ(x.st.syncs, 1);
	CHECK_EQ(x.st.skipped_bytes, want->recs[0].offset);
	CHECK_EQ(x.invariant_bad, 0);
	run_free(&x);
}

struct variant {
	const char *suffix;
	unsigned s, t, y;
	uint32_t id;
	bool periodic_sync;
};

static const struct variant variants[] = {
	{ ".A_s0_t0_y0_sync16.bin", 0, 0, 0, 0, true },
	{ ".B_s8id5_t2_y1_foreign7_sync50.bin", 8, 2, 1, 5, true },
	{ ".C_s6id1_t0_y2.bin", 6, 0, 2, 1, false },
};

/* Checks B's foreign srcID 6 packets: separate, 3 payload bytes each, one per 7 of ours. */
static void check_foreign(const struct run *r, const struct run *raw)
{
	size_t i, foreign = 0, others = 0, ours = 0;

	for (i = 0; i < r->n; i++) {
		if (r->recs[i].kind != SPOOR_DF_FRAME)
			continue;
		if (r->recs[i].source == 6) {
			/* one after each 7th of ours, starting with the first */
			foreign++;
			CHECK_EQ(r->recs[i].payload_len, 3);
			CHECK(ours > 0 && (ours - 1) % 7 == 0);
		} else if (r->recs[i].source == 5) {
			ours++;
			CHECK(r->recs[i].has_timestamp);
		} else {
			others++;
		}
	}
	CHECK(foreign > 0);
	CHECK_EQ(foreign, (ours + 6) / 7);
	CHECK_EQ(ours, raw->st.frames);
	CHECK_EQ(others, 0);
}

/* Checks one encapsulated vector of @stem against the raw stream's run @raw. */
static void check_variant(const char *stem, const struct variant *v, const struct run *raw)
{
	struct spoor_deframe_config cfg;
	struct run e;
	uint8_t *data;
	size_t len = 0;

	data = read_vector("encap", stem, v->suffix, &len);
	CHECK(data != NULL);
	if (!data)
		return;
	etrace_config(&cfg, v->s, v->t, v->y);
	run_deframe(&cfg, data, len, (size_t)-1, &e);
	check_clean(&e, len);
	CHECK_EQ(e.st.syncs, 0);
	CHECK(same_payloads(&e, v->id, raw));
	CHECK(frames_match_decode(&cfg.encap, data, &e));
	if (v->id == 5)
		check_foreign(&e, raw);
	check_chunkings(&cfg, data, len, &e);
	if (v->periodic_sync)
		check_unsynced_start(&cfg, data, len, &e);
	run_free(&e);
	free(data);
}

static void test_vectors(void)
{
	struct spoor_deframe_config cfg;
	struct run r;
	uint8_t *raw;
	size_t i, k, len = 0;

	for (i = 0; i < N_STEMS; i++) {
		raw = read_vector("itype4_basic", stems[i], ".te_inst_raw", &len);
		CHECK(raw != NULL);
		if (!raw)
			continue;
		raw_config(&cfg);
		run_deframe(&cfg, raw, len, (size_t)-1, &r);
		check_clean(&r, len);
		CHECK(r.st.frames > 0);
		CHECK_EQ(r.st.syncs, 0);
		CHECK(frames_match_decode(&cfg.encap, raw, &r));
		check_chunkings(&cfg, raw, len, &r);
		for (k = 0; k < sizeof(variants) / sizeof(variants[0]); k++)
			check_variant(stems[i], &variants[k], &r);
		run_free(&r);
		free(raw);
	}
}

/* Returns how many leading frames of @r end at or before stream offset @end. */
static size_t frames_before(const struct run *r, uint64_t end)
{
	size_t n = 0;

	while (n < r->n && r->recs[n].kind == SPOOR_DF_FRAME &&
	       r->recs[n].offset + r->recs[n].size <= end)
		n++;
	return n;
}

/* Returns true when the first @n items of @a and @b are equal. */
static bool same_prefix(const struct run *a, const struct run *b, size_t n)
{
	return a->n >= n && b->n >= n && (!n || !memcmp(a->recs, b->recs, n * sizeof(*a->recs)));
}

/* Runs @data whole, in random chunks and byte by byte; checks they agree; whole run in @r. */
static void run_three_ways(const struct spoor_deframe_config *cfg, const uint8_t *data, size_t len,
			   struct run *r)
{
	struct run x;
	int k;

	run_deframe(cfg, data, len, (size_t)-1, r);
	CHECK_EQ(r->invariant_bad, 0);
	CHECK_EQ(r->next_bad, 0);
	for (k = 0; k < 4; k++) {
		/* random chunks, single bytes, random chunks with the batch fast
		 * path, random chunks through spoor_deframe_drain() */
		use_batch = k == 2;
		use_drain = k == 3;
		run_deframe(cfg, data, len, k == 1 ? 1 : 0, &x);
		CHECK(same_items(&x, r));
		CHECK_EQ(x.invariant_bad, 0);
		CHECK_EQ(x.next_bad, 0);
		run_free(&x);
	}
	use_batch = false;
	use_drain = false;
}

/* Truncates @raw at random points: frames before the cut survive, the cut frame is reported. */
static void test_truncate(const uint8_t *raw, size_t len, const struct run *want, unsigned iters)
{
	struct spoor_deframe_config cfg;
	struct run x;
	size_t t, n;
	unsigned it;

	raw_config(&cfg);
	for (it = 0; it < iters; it++) {
		t = rnd_below(len + 1);
		run_three_ways(&cfg, raw, t, &x);
		n = frames_before(want, t);
		CHECK(same_prefix(&x, want, n));
		if (n < want->n && want->recs[n].offset < t) {
			CHECK_EQ(x.n, n + 1);
			CHECK_EQ(x.recs[n].kind, SPOOR_DF_TRUNCATED);
			CHECK_EQ(x.recs[n].offset, want->recs[n].offset);
			CHECK_EQ(x.recs[n].bytes, t - want->recs[n].offset);
			CHECK_EQ(x.st.truncated_bytes, t - want->recs[n].offset);
		} else {
			CHECK_EQ(x.n, n);
			CHECK_EQ(x.st.truncated_bytes, 0);
		}
		run_free(&x);
	}
}

/* Flips random bits of @raw: no crash, counters exact, frames before the first flip intact. */
static void test_bitflips(const uint8_t *raw, size_t len, const struct run *want, unsigned iters)
{
	struct spoor_deframe_config cfg;
	uint8_t *buf = malloc(len);
	size_t first, pos;
	unsigned it, k, flips;
	struct run x;

	raw_config(&cfg);
	for (it = 0; it < iters && buf; it++) {
		memcpy(buf, raw, len);
		flips = 1 + (unsigned)rnd_below(4);
		first = len;
		for (k = 0; k < flips; k++) {
			pos = rnd_below(len);
			buf[pos] ^= (uint8_t)(1u << rnd_below(8));
			if (pos < first)
				first = pos;
		}
		run_three_ways(&cfg, buf, len, &x);
		CHECK(same_prefix(&x, want, frames_before(want, first)));
		CHECK_EQ(x.st.bytes, len);
		run_free(&x);
	}
	free(buf);
}

/* Makes headers of @raw impossible one at a time: a SYNC_LOST right there, frames before intact. */
static void test_bad_headers(const uint8_t *raw, size_t len, const struct run *want, unsigned iters)
{
	struct spoor_deframe_config cfg;
	uint8_t *buf = malloc(len);
	unsigned it;
	struct run x;
	size_t j;

	raw_config(&cfg);
	for (it = 0; it < iters && buf && want->n; it++) {
		j = rnd_below(want->n);
		memcpy(buf, raw, len);
		if (it & 1)
			buf[want->recs[j].offset] |= 0x80;	/* extend in raw */
		else
			buf[want->recs[j].offset] &= 0x9f;	/* type 0 */
		run_three_ways(&cfg, buf, len, &x);
		CHECK(same_prefix(&x, want, j));
		CHECK(x.n > j);
		if (x.n > j) {
			CHECK_EQ(x.recs[j].kind, SPOOR_DF_SYNC_LOST);
			CHECK_EQ(x.recs[j].offset, want->recs[j].offset);
			CHECK_EQ(x.recs[j].reason, SPOOR_E_BAD_HEADER);
		}
		CHECK(x.st.sync_losses >= 1);
		run_free(&x);
	}
	free(buf);
}

/* Inserts (@insert) or drops random bytes: counters exact, frames before the change intact. */
static void test_splice(const uint8_t *raw, size_t len, const struct run *want, unsigned iters,
			bool insert)
{
	struct spoor_deframe_config cfg;
	uint8_t *buf = malloc(len + 64);
	size_t q, k, i, n;
	unsigned it;
	struct run x;

	raw_config(&cfg);
	for (it = 0; it < iters && buf && len > 64; it++) {
		q = rnd_below(len - 32);
		k = 1 + rnd_below(insert ? 64 : 32);
		memcpy(buf, raw, q);
		if (insert) {
			for (i = 0; i < k; i++)
				buf[q + i] = (uint8_t)rnd();
			memcpy(buf + q + k, raw + q, len - q);
			n = len + k;
		} else {
			memcpy(buf + q, raw + q + k, len - q - k);
			n = len - k;
		}
		run_three_ways(&cfg, buf, n, &x);
		CHECK(same_prefix(&x, want, frames_before(want, q)));
		CHECK_EQ(x.st.bytes, n);
		run_free(&x);
	}
	free(buf);
}

static void test_robustness(void)
{
	static const char *const which[] = { "br_j_asm", "towers", "embench-statemate" };
	static const unsigned iters[] = { 150, 150, 8 };
	struct spoor_deframe_config cfg;
	struct run r;
	uint8_t *raw;
	size_t i, len = 0;

	for (i = 0; i < 3; i++) {
		raw = read_vector("itype4_basic", which[i], ".te_inst_raw", &len);
		CHECK(raw != NULL);
		if (!raw)
			continue;
		raw_config(&cfg);
		run_deframe(&cfg, raw, len, (size_t)-1, &r);
		test_truncate(raw, len, &r, iters[i]);
		test_bitflips(raw, len, &r, iters[i]);
		test_bad_headers(raw, len, &r, iters[i]);
		test_splice(raw, len, &r, iters[i], true);
		test_splice(raw, len, &r, iters[i], false);
		run_free(&r);
		free(raw);
	}
}

/* A stream built from a run's frames, with the offset of each packet. */
struct built {
	uint8_t *data;
	size_t len;
	uint64_t *off;
	size_t n;
};

static void built_free(struct built *b)
{
	free(b->data);
	free(b->off);
	memset(b, 0, sizeof(*b));
}

/* Appends the frame @x re-encoded under @ec from source @id to @b. */
static void append_frame(const struct spoor_encap_config *ec, uint32_t id, const struct rec *x,
			 struct built *b)
{
	struct spoor_frame f;
	int size;

	memset(&f, 0, sizeof(f));
	f.payload = x->payload;
	f.payload_len = x->payload_len;
	f.msg = x->msg;
	f.source = id;
	f.has_timestamp = ec->ts_bytes && (rnd() & 1);
	if (f.has_timestamp)
		f.timestamp = rnd() & ((1ull << (ec->ts_bytes * 8 - 1)) - 1);
	b->off[b->n++] = b->len;
	size = spoor_encap_encode(ec, &f, b->data + b->len, SPOOR_FRAME_MAX);
	CHECK(size > 0);
	if (size > 0)
		b->len += (size_t)size;
}

/*
 * Builds @want's frames re-encoded under @ec from @id into @b, a sync
 * sequence before every @group-th packet.  Returns true on success.
 */
static bool build_stream(const struct spoor_encap_config *ec, uint32_t id, const struct run *want,
			 unsigned group, struct built *b)
{
	size_t i, cap = want->n * SPOOR_FRAME_MAX + (want->n / group + 1) * 64;
	int k;

	memset(b, 0, sizeof(*b));
	b->data = malloc(cap);
	b->off = malloc((want->n + 1) * sizeof(*b->off));
	if (!b->data || !b->off)
		return false;
	for (i = 0; i < want->n; i++) {
		if (i % group == 0) {
			k = spoor_encap_sync_sequence(ec, 0, b->data + b->len, 64);
			CHECK(k > 0);
			b->len += k > 0 ? (size_t)k : 0;
		}
		append_frame(ec, id, &want->recs[i], b);
	}
	return true;
}

struct resume_case {
	unsigned s, t, y;
	uint32_t id;
	int reason;	/* what the corrupted header gives, 0: no corruption test */
};

/* Returns @h made impossible for case @c. */
static uint8_t break_header(const struct resume_case *c, uint8_t h)
{
	if (c->reason == SPOOR_E_BAD_HEADER)
		return h | 0x80;		/* extend without timestamp bytes */
	return (uint8_t)((h & 0xe0) | 1);	/* one byte: no room for a payload bit */
}

/* Checks one corruption of packet @j in @b (clean run @clean), sync sequences every @group. */
static void check_resume(const struct spoor_deframe_config *cfg, const struct resume_case *c,
			 const struct built *b, const struct run *clean, size_t j, unsigned group)
{
	uint8_t *buf = malloc(b->len);
	size_t g = (j / group + 1) * group;
	uint64_t lost;
	struct run x;

	if (!buf)
		return;
	memcpy(buf, b->data, b->len);
	buf[b->off[j]] = break_header(c, buf[b->off[j]]);
	run_three_ways(cfg, buf, b->len, &x);
	lost = (g < b->n ? b->off[g] : b->len) - b->off[j];
	CHECK(same_prefix(&x, clean, j));
	CHECK_EQ(x.n, g < b->n ? j + 2 + (b->n - g) : j + 1);
	CHECK_EQ(x.st.skipped_bytes, lost);
	CHECK_EQ(x.st.sync_losses, 1);
	if (x.n > j) {
		CHECK_EQ(x.recs[j].kind, SPOOR_DF_SYNC_LOST);
		CHECK_EQ(x.recs[j].offset, b->off[j]);
		CHECK_EQ(x.recs[j].reason, c->reason);
	}
	if (g < b->n && x.n == j + 2 + (b->n - g)) {
		CHECK_EQ(x.recs[j + 1].kind, SPOOR_DF_SYNC);
		CHECK_EQ(x.recs[j + 1].offset, b->off[g]);
		CHECK_EQ(x.recs[j + 1].bytes, lost);
		CHECK(!memcmp(x.recs + j + 2, clean->recs + g, (b->n - g) * sizeof(*x.recs)));
	}
	run_free(&x);
	free(buf);
}

/* Corrupts headers of streams with periodic sync sequences: decoding resumes after the next. */
static void test_resume(void)
{
	static const struct resume_case cases[] = {
		{ 0, 0, 0, 0, SPOOR_E_BAD_HEADER },
		{ 8, 0, 1, 0x5a, SPOOR_E_BAD_HEADER },
		{ 6, 0, 2, 1, SPOOR_E_BAD_HEADER },
		{ 16, 0, 4, 0xbeef, SPOOR_E_BAD_HEADER },
		{ 3, 0, 2, 5, SPOOR_E_BAD_HEADER },
		{ 7, 2, 8, 0x41, SPOOR_E_BAD_LENGTH },
		{ 8, 2, 0, 0x33, 0 },		/* every header possible: clean only */
		{ 16, 3, 0, 0x1234, 0 },
	};
	const unsigned group = 16;
	struct spoor_deframe_config cfg, rcfg;
	struct run raw_run, clean;
	struct built b;
	uint8_t *raw;
	size_t i, len = 0;
	unsigned it;

	raw = read_vector("itype4_basic", "towers", ".te_inst_raw", &len);
	CHECK(raw != NULL);
	if (!raw)
		return;
	raw_config(&rcfg);
	run_deframe(&rcfg, raw, len, (size_t)-1, &raw_run);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		etrace_config(&cfg, cases[i].s, cases[i].t, cases[i].y);
		if (!build_stream(&cfg.encap, cases[i].id, &raw_run, group, &b)) {
			CHECK(0);
			built_free(&b);
			continue;
		}
		run_three_ways(&cfg, b.data, b.len, &clean);
		check_clean(&clean, b.len);
		CHECK_EQ(clean.n, raw_run.n);
		CHECK(same_payloads(&clean, cases[i].id, &raw_run));
		CHECK(frames_match_decode(&cfg.encap, b.data, &clean));
		check_unsynced_start(&cfg, b.data, b.len, &clean);
		for (it = 0; it < 40 && b.n && cases[i].reason; it++)
			check_resume(&cfg, &cases[i], &b, &clean, rnd_below(b.n), group);
		if (cases[i].reason) {
			check_resume(&cfg, &cases[i], &b, &clean, 0, group);
			check_resume(&cfg, &cases[i], &b, &clean, b.n - 1, group);
		}
		run_free(&clean);
		built_free(&b);
	}
	run_free(&raw_run);
	free(raw);
}

/* Packs @want's frames (from @raw) into @m-byte blocks padded with zeros, into @b. */
static bool build_blocks(const uint8_t *raw, const struct run *want, unsigned m, struct built *b)
{
	size_t i, size, room;

	memset(b, 0, sizeof(*b));
	b->data = calloc(want->n * 2 + 1, SPOOR_FRAME_MAX);
	b->off = malloc((want->n + 1) * sizeof(*b->off));
	if (!b->data || !b->off)
		return false;
	for (i = 0; i < want->n; i++) {
		size = want->recs[i].size;
		room = m - b->len % m;
		if (size > room)
			b->len += room;		/* already zero */
		b->off[b->n++] = b->len;
		memcpy(b->data + b->len, raw + want->recs[i].offset, size);
		b->len += size;
	}
	return true;
}

/* Returns true when @x's frames are @want's except [@from, @to), at stream offsets @b->off. */
static bool frames_except(const struct run *x, size_t first, const struct run *want,
			  const struct built *b, size_t from, size_t to)
{
	struct rec r;
	size_t i, k = first;

	for (i = 0; i < want->n; i++) {
		if (i >= from && i < to)
			continue;
		while (k < x->n && x->recs[k].kind != SPOOR_DF_FRAME)
			k++;
		if (k >= x->n)
			return false;
		memcpy(&r, &want->recs[i], sizeof(r));
		r.offset = b->off[i];
		if (memcmp(&r, &x->recs[k], sizeof(r)))
			return false;
		k++;
	}
	return count_kind(x, SPOOR_DF_FRAME) == want->n - (to - from);
}

/* Returns the index of the first item of @kind in @x, or x->n. */
static size_t find_kind(const struct run *x, int kind)
{
	size_t k = 0;

	while (k < x->n && x->recs[k].kind != kind)
		k++;
	return k;
}

/* A corrupted block loses that block only; a frame crossing a block is reported. */
static void test_blocks(void)
{
	const unsigned m = 64;
	struct spoor_deframe_config cfg;
	struct run want, x;
	struct built b;
	uint8_t *raw, *buf = NULL;
	size_t len = 0, blk, i, j, k, lost;

	raw = read_vector("itype4_basic", "br_j_asm", ".te_inst_raw", &len);
	CHECK(raw != NULL);
	if (!raw)
		return;
	raw_config(&cfg);
	run_deframe(&cfg, raw, len, (size_t)-1, &want);
	if (!build_blocks(raw, &want, m, &b) || !(buf = malloc(b.len)))
		goto out;
	cfg.block_size = m;
	cfg.start_synced = false;	/* offset 0 starts a block */
	run_three_ways(&cfg, b.data, b.len, &x);
	CHECK(x.n > 0 && x.recs[0].kind == SPOOR_DF_SYNC && x.recs[0].offset == 0);
	CHECK(frames_except(&x, 1, &want, &b, 0, 0));
	CHECK_EQ(x.st.syncs, 1);
	CHECK_EQ(x.st.sync_losses, 0);
	CHECK_EQ(x.st.frame_bytes + x.st.null_bytes, b.len);
	run_free(&x);

	/* impossible first header of a block: only that block's frames are lost */
	for (blk = 3; blk + 3 < b.len / m; blk += 5) {
		for (i = 0; i < b.n && b.off[i] < blk * m; i++)
			;
		for (j = i; j < b.n && b.off[j] < (blk + 1) * m; j++)
			;
		memcpy(buf, b.data, b.len);
		CHECK_EQ(b.off[i], blk * m);
		buf[b.off[i]] |= 0x80;
		run_three_ways(&cfg, buf, b.len, &x);
		CHECK(frames_except(&x, 0, &want, &b, i, j));
		k = find_kind(&x, SPOOR_DF_SYNC_LOST);
		CHECK(k + 1 < x.n);
		if (k + 1 < x.n) {
			CHECK_EQ(x.recs[k].offset, blk * m);
			CHECK_EQ(x.recs[k].reason, SPOOR_E_BAD_HEADER);
			CHECK_EQ(x.recs[k + 1].kind, SPOOR_DF_SYNC);
			CHECK_EQ(x.recs[k + 1].offset, (blk + 1) * m);
			CHECK_EQ(x.recs[k + 1].bytes, m);
		}
		CHECK_EQ(x.st.skipped_bytes, m);
		CHECK_EQ(x.st.syncs, 2);
		run_free(&x);
	}

	/* a length that runs past the block end: CROSS_BLOCK, the rest of the block is lost */
	for (i = 0, k = 0; i < b.n && k < 20; i++) {
		if (b.off[i] % m <= 32)
			continue;
		for (j = i; j < b.n && b.off[j] / m == b.off[i] / m; j++)
			;
		memcpy(buf, b.data, b.len);
		buf[b.off[i]] = 0x5f;		/* te_inst, 31 bytes */
		run_three_ways(&cfg, buf, b.len, &x);
		CHECK(frames_except(&x, 0, &want, &b, i, j));
		lost = m - b.off[i] % m;
		CHECK_EQ(x.st.skipped_bytes, lost);
		CHECK_EQ(x.st.sync_losses, 1);
		j = find_kind(&x, SPOOR_DF_SYNC_LOST);
		if (j + 1 < x.n) {
			CHECK_EQ(x.recs[j].offset, b.off[i]);
			CHECK_EQ(x.recs[j].reason, SPOOR_E_CROSS_BLOCK);
			CHECK_EQ(x.recs[j + 1].kind, SPOOR_DF_SYNC);
			CHECK_EQ(x.recs[j + 1].bytes, lost);
		} else {
			CHECK(0);
		}
		run_free(&x);
		k++;
	}
	CHECK_EQ(k, 20);
out:
	free(buf);
	built_free(&b);
	run_free(&want);
	free(raw);
}

/* One ATB source's byte stream and the stream offset each of its bytes was fed at. */
struct atb_src {
	struct built b;
	uint64_t *goff;
	size_t fed;
	unsigned atid;
};

/* Interleaves chunks of two ATIDs' streams, cutting frames anywhere: both come out intact. */
static void test_atb_lanes(void)
{
	struct spoor_deframe_config cfg;
	struct spoor_deframe_item it;
	struct spoor_deframe *df;
	struct atb_src src[2];
	struct run want, part[2], got;
	uint8_t *raw;
	size_t len = 0, i, n, total = 0, k;
	uint64_t off = 0;

	raw = read_vector("itype4_basic", "br_j_asm", ".te_inst_raw", &len);
	CHECK(raw != NULL);
	if (!raw)
		return;
	raw_config(&cfg);
	run_deframe(&cfg, raw, len, (size_t)-1, &want);
	memset(&cfg, 0, sizeof(cfg));
	spoor_encap_config_init(&cfg.encap, SPOOR_ENCAP_ATB);
	cfg.start_synced = true;
	df = spoor_deframe_new(&cfg);
	CHECK(df != NULL);
	/* ATID 3 gets the even frames, ATID 127 the odd ones */
	memset(part, 0, sizeof(part));
	for (i = 0; i < want.n; i++) {
		struct spoor_deframe_item w = { .kind = SPOOR_DF_FRAME };

		w.frame.payload = want.recs[i].payload;
		w.frame.payload_len = want.recs[i].payload_len;
		w.frame.msg = SPOOR_MSG_TE_INST;
		add_rec(&part[i & 1], &w);
	}
	memset(src, 0, sizeof(src));
	src[0].atid = 3;
	src[1].atid = 127;
	for (k = 0; k < 2; k++) {
		build_stream(&cfg.encap, 0, &part[k], 1u << 30, &src[k].b);
		src[k].goff = calloc(src[k].b.len + 1, sizeof(uint64_t));
		/* the stream starts with a sync sequence: skip it */
		src[k].fed = src[k].b.off[0];
		total += src[k].b.len;
	}
	memset(&got, 0, sizeof(got));
	CHECK_EQ(spoor_deframe_feed(df, raw, 1, 128), SPOOR_E_INVAL);
	while (df && (src[0].fed < src[0].b.len || src[1].fed < src[1].b.len)) {
		k = rnd_below(2);
		if (src[k].fed == src[k].b.len)
			k ^= 1;
		n = 1 + rnd_below(9);
		if (n > src[k].b.len - src[k].fed)
			n = src[k].b.len - src[k].fed;
		for (i = 0; i < n; i++)
			src[k].goff[src[k].fed + i] = off + i;
		CHECK_EQ(spoor_deframe_feed(df, src[k].b.data + src[k].fed, n, src[k].atid), 0);
		drain(df, &got);
		src[k].fed += n;
		off += n;
	}
	CHECK_EQ(got.invariant_bad, 0);
	CHECK_EQ(count_kind(&got, SPOOR_DF_FRAME), want.n);
	for (k = 0; k < 2; k++) {
		size_t f = 0;

		for (i = 0; i < got.n; i++) {
			if (got.recs[i].source != src[k].atid)
				continue;
			if (f < src[k].b.n)
				CHECK_EQ(got.recs[i].offset, src[k].goff[src[k].b.off[f]]);
			f++;
			CHECK(got.recs[i].payload_len == part[k].recs[f - 1].payload_len &&
			      !memcmp(got.recs[i].payload, part[k].recs[f - 1].payload,
				      got.recs[i].payload_len));
		}
		CHECK_EQ(f, src[k].b.n);
	}
	/* a frame cut off in one lane at the end: TRUNCATED for that ATID */
	if (df) {
		static const uint8_t cut[] = { 0x85, 0x11, 0x22, 0x33 };	/* needs 8 bytes */

		CHECK_EQ(spoor_deframe_feed(df, cut, sizeof(cut), 9), 0);
		CHECK_EQ(spoor_deframe_next(df, &it, sizeof(it)), 0);
		CHECK_EQ(spoor_deframe_finish(df), 0);
		CHECK_EQ(spoor_deframe_next(df, &it, sizeof(it)), SPOOR_DF_TRUNCATED);
		CHECK_EQ(it.source, 9);
		CHECK_EQ(it.offset, total - src[0].b.off[0] - src[1].b.off[0]);
		CHECK_EQ(it.bytes, sizeof(cut));
		CHECK_EQ(spoor_deframe_next(df, &it, sizeof(it)), 0);
		CHECK(invariant_holds(df));
	}
	spoor_deframe_free(df);
	for (k = 0; k < 2; k++) {
		built_free(&src[k].b);
		free(src[k].goff);
		run_free(&part[k]);
	}
	run_free(&got);
	run_free(&want);
	free(raw);
}

/* Argument checks, chunk bookkeeping and truncation at the end. */
static void test_api(void)
{
	struct spoor_frame fr[2];
	/* the first 4 bytes of a 6-byte raw frame */
	static const uint8_t frame[] = { 0x45, 0x01, 0x02, 0x03 };
	struct spoor_deframe_config cfg;
	struct spoor_deframe_stats st;
	struct spoor_deframe_item it;
	struct spoor_deframe *df;

	CHECK(spoor_deframe_new(NULL) == NULL);
	raw_config(&cfg);
	cfg.encap.ts_bytes = 2;		/* raw has no timestamp */
	CHECK(spoor_deframe_new(&cfg) == NULL);
	raw_config(&cfg);
	df = spoor_deframe_new(&cfg);
	CHECK(df != NULL);
	if (!df)
		return;
	CHECK_EQ(spoor_deframe_feed(NULL, frame, 1, 0), SPOOR_E_INVAL);
	CHECK_EQ(spoor_deframe_feed(df, NULL, 1, 0), SPOOR_E_INVAL);
	CHECK_EQ(spoor_deframe_feed(df, NULL, 0, 0), 0);
	CHECK_EQ(spoor_deframe_next(df, &it, sizeof(it)), 0);
	CHECK_EQ(spoor_deframe_next(NULL, &it, sizeof(it)), SPOOR_E_INVAL);
	CHECK_EQ(spoor_deframe_next(df, NULL, sizeof(it)), SPOOR_E_INVAL);
	CHECK_EQ(spoor_deframe_next(df, &it, sizeof(it) - 1), SPOOR_E_INVAL);
	CHECK_EQ(spoor_deframe_stats(NULL, &st, sizeof(st)), SPOOR_E_INVAL);
	CHECK_EQ(spoor_deframe_stats(df, NULL, sizeof(st)), SPOOR_E_INVAL);
	CHECK_EQ(spoor_deframe_stats(df, &st, sizeof(st) - 1), SPOOR_E_INVAL);
	CHECK_EQ(spoor_deframe_finish(NULL), SPOOR_E_INVAL);
	CHECK_EQ(spoor_deframe_offset(NULL), 0);
	CHECK_EQ(spoor_deframe_next_frames(NULL, fr, 2), SPOOR_E_INVAL);
	CHECK_EQ(spoor_deframe_next_frames(df, NULL, 2), SPOOR_E_INVAL);
	CHECK_EQ(spoor_deframe_next_frames(df, NULL, 0), 0);

	CHECK_EQ(spoor_deframe_feed(df, frame, 2, 0), 0);
	CHECK_EQ(spoor_deframe_feed(df, frame, 2, 0), SPOOR_E_INVAL);	/* still pending */
	CHECK_EQ(spoor_deframe_finish(df), SPOOR_E_INVAL);
	CHECK_EQ(spoor_deframe_offset(df), 0);
	CHECK_EQ(spoor_deframe_next(df, &it, sizeof(it)), 0);
	CHECK_EQ(spoor_deframe_offset(df), 2);
	CHECK_EQ(spoor_deframe_stats(df, &st, sizeof(st)), 0);
	CHECK_EQ(st.pending_bytes, 2);
	CHECK_EQ(st.bytes, 2);
	CHECK_EQ(spoor_deframe_next_frames(df, fr, 2), 0);	/* a split frame: next()'s job */
	CHECK_EQ(spoor_deframe_feed(df, frame + 2, 2, 77), 0);		/* source ignored */
	CHECK_EQ(spoor_deframe_next(df, &it, sizeof(it)), 0);
	CHECK_EQ(spoor_deframe_finish(df), 0);
	CHECK_EQ(spoor_deframe_feed(df, frame, 1, 0), SPOOR_E_INVAL);	/* after the end */
	CHECK_EQ(spoor_deframe_next(df, &it, sizeof(it)), SPOOR_DF_TRUNCATED);
	CHECK_EQ(it.offset, 0);
	CHECK_EQ(it.bytes, 4);
	CHECK_EQ(spoor_deframe_next(df, &it, sizeof(it)), 0);
	CHECK_EQ(spoor_deframe_stats(df, &st, sizeof(st)), 0);
	CHECK_EQ(st.truncated_bytes, 4);
	CHECK_EQ(st.pending_bytes, 0);
	CHECK_EQ(st.frames, 0);
	spoor_deframe_free(df);
	spoor_deframe_free(NULL);
}

/* Collects the kinds and offsets of every item of the current chunk. */
static unsigned items_of(struct spoor_deframe *df, struct spoor_deframe_item *out, unsigned max)
{
	struct spoor_deframe_item it;
	unsigned n = 0;

	while (spoor_deframe_next(df, &it, sizeof(it)) > 0)
		if (n < max)
			out[n++] = it;
	return n;
}

/*
 * spoor_deframe_gap(): a probe's overflow in the middle of a frame drops
 * that frame, the deframer finds the next one by zero-run alignment, and
 * offsets stay trace offsets (a known loss) or go on as fed (unknown).
 */
static void test_gap(void)
{
	uint8_t s[6 + 6 + 32 + 6] = { 0 };
	struct spoor_deframe_config cfg;
	struct spoor_deframe_item it[8];
	struct spoor_deframe_stats st;
	struct spoor_deframe *df;

	/* A, B, 32 idle bytes, C: 6-byte raw frames. */
	for (unsigned f = 0; f < 3; f++) {
		uint8_t *p = s + (f < 2 ? 6 * f : 44);

		p[0] = 0x45;
		for (unsigned i = 1; i < 6; i++)
			p[i] = (uint8_t)(16 * f + i);
	}
	for (unsigned unknown = 0; unknown < 2; unknown++) {
		raw_config(&cfg);
		cfg.start_synced = true;
		df = spoor_deframe_new(&cfg);
		CHECK(df != NULL);
		if (!df)
			return;
		/* A and two bytes of B; the next four are lost. */
		CHECK_EQ(spoor_deframe_feed(df, s, 8, 0), 0);
		CHECK_EQ(spoor_deframe_gap(df, 0, 4, it), SPOOR_E_INVAL);	/* chunk pending */
		CHECK_EQ(items_of(df, it, 8), 1);
		CHECK_EQ(it[0].kind, SPOOR_DF_FRAME);
		CHECK_EQ(spoor_deframe_gap(df, 0, unknown ? SPOOR_DEFRAME_LOST_UNKNOWN : 4, it),
			 SPOOR_DF_GAP);
		CHECK_EQ(it[0].offset, 8);
		CHECK_EQ(it[0].bytes, unknown ? SPOOR_DEFRAME_LOST_UNKNOWN : 4);
		CHECK_EQ(spoor_deframe_offset(df), unknown ? 8 : 12);
		/* What follows the loss: no frame until the zero run, then C. */
		CHECK_EQ(spoor_deframe_feed(df, s + 12, sizeof(s) - 12, 0), 0);
		CHECK_EQ(items_of(df, it, 8), 2);
		CHECK_EQ(it[0].kind, SPOOR_DF_SYNC);
		CHECK_EQ(it[1].kind, SPOOR_DF_FRAME);
		CHECK_EQ(it[1].frame.offset, unknown ? 40 : 44);
		CHECK_EQ(it[1].frame.payload[0], 33);
		CHECK_EQ(spoor_deframe_stats(df, &st, sizeof(st)), 0);
		CHECK_EQ(st.gaps, 1);
		CHECK_EQ(st.lost_bytes, unknown ? 0 : 4);
		CHECK_EQ(st.truncated_bytes, 2);	/* B's first two bytes */
		CHECK_EQ(st.pending_bytes, 0);
		CHECK_EQ(st.frames, 2);
		CHECK_EQ(spoor_deframe_finish(df), 0);
		CHECK_EQ(spoor_deframe_gap(df, 0, 1, it), SPOOR_E_INVAL);	/* after the end */
		spoor_deframe_free(df);
	}
	CHECK_EQ(spoor_deframe_gap(NULL, 0, 1, it), SPOOR_E_INVAL);
}

/*
 * payload_room: a frame inside the chunk may be read up to the chunk's end;
 * one split across chunks (held by the deframer) at least to its own end.
 */
static void test_payload_room(void)
{
	/* six raw te_inst frames of 4 bytes: header 0x43, three payload bytes */
	uint8_t stream[24];
	const uint8_t *chunk[2] = { stream, stream + 10 };
	const size_t len[2] = { 10, 14 };
	struct spoor_deframe_config cfg;
	struct spoor_deframe_item it;
	struct spoor_frame fr[8];
	struct spoor_deframe *df;
	unsigned frames = 0, in_chunk = 0;
	int k;

	for (unsigned i = 0; i < sizeof(stream); i++)
		stream[i] = i % 4 ? (uint8_t)(0x10 + i) : 0x43;
	raw_config(&cfg);
	df = spoor_deframe_new(&cfg);
	CHECK(df != NULL);
	if (!df)
		return;
	for (unsigned c = 0; c < 2; c++) {
		const uint8_t *end = chunk[c] + len[c];

		CHECK_EQ(spoor_deframe_feed(df, chunk[c], len[c], 0), 0);
		for (;;) {
			k = spoor_deframe_next_frames(df, fr, 8);
			for (int i = 0; i < k; i++, frames++, in_chunk++)
				CHECK(fr[i].payload + fr[i].payload_room == end);
			if (k == 8)
				continue;
			if (spoor_deframe_next(df, &it, sizeof(it)) != SPOOR_DF_FRAME)
				break;
			frames++;
			CHECK(it.frame.payload_room >= it.frame.payload_len);
			if (it.frame.payload >= chunk[c] && it.frame.payload < end) {
				CHECK(it.frame.payload + it.frame.payload_room == end);
				in_chunk++;
			} else {
				/* the frame split at byte 10: held, payload bytes 9..11 */
				CHECK_EQ(it.frame.offset, 8);
				CHECK_EQ(it.frame.payload[0], 0x10 + 9);
				CHECK_EQ(it.frame.payload[2], 0x10 + 11);
			}
		}
	}
	CHECK_EQ(frames, 6);
	CHECK_EQ(in_chunk, 5);
	spoor_deframe_free(df);
}

/* Unsynchronised start: garbage, then a sync sequence, then frames. */
static void test_garbage_start(void)
{
	static const uint8_t frames[] = { 0x02, 0x11, 0x22, 0x00, 0x01, 0x33 };
	struct spoor_deframe_config cfg;
	uint8_t data[256];
	size_t len = 0, i;
	struct run x;
	int k;

	etrace_config(&cfg, 0, 0, 0);
	cfg.start_synced = false;
	for (i = 0; i < 100; i++)
		data[len++] = (uint8_t)(rnd() | 1);	/* never a null byte */
	/* 30 null bytes are not a sync sequence */
	memset(data + len, 0, 30);
	len += 30;
	data[len++] = 0x41;
	k = spoor_encap_sync_sequence(&cfg.encap, 0, data + len, sizeof(data) - len);
	CHECK_EQ(k, 32);
	len += (size_t)k;
	memcpy(data + len, frames, sizeof(frames));
	len += sizeof(frames);
	run_three_ways(&cfg, data, len, &x);
	CHECK_EQ(x.n, 3);
	if (x.n == 3) {
		CHECK_EQ(x.recs[0].kind, SPOOR_DF_SYNC);
		CHECK_EQ(x.recs[0].offset, 163);
		CHECK_EQ(x.recs[0].bytes, 163);
		CHECK_EQ(x.recs[1].kind, SPOOR_DF_FRAME);
		CHECK_EQ(x.recs[1].offset, 163);
		CHECK_EQ(x.recs[1].payload_len, 2);
		CHECK_EQ(x.recs[2].offset, 167);
		CHECK_EQ(x.recs[2].payload[0], 0x33);
	}
	CHECK_EQ(x.st.skipped_bytes, 163);
	CHECK_EQ(x.st.null_bytes, 1);
	run_free(&x);
}

/* Picks a random deframer configuration into @cfg. */
static void random_config(struct spoor_deframe_config *cfg)
{
	unsigned kind = (unsigned)rnd_below(4);

	memset(cfg, 0, sizeof(*cfg));
	spoor_encap_config_init(&cfg->encap, (enum spoor_encap_kind)kind);
	if (kind == SPOOR_ENCAP_ETRACE) {
		cfg->encap.src_bits = (unsigned)rnd_below(17);
		cfg->encap.ts_bytes = (unsigned)rnd_below(9);
		cfg->encap.type_bits = (unsigned)rnd_below(9);
	}
	cfg->start_synced = rnd() & 1;
	if (rnd_below(3) == 0)
		cfg->block_size = 1 + (unsigned)rnd_below(128);
	if (rnd_below(3) == 0)
		cfg->sync_run = 1 + (unsigned)rnd_below(40);
}

/* Appends a random segment to @buf (capacity @cap; length in *@len): noise, nulls, frames. */
static void random_segment(const struct spoor_encap_config *ec, uint8_t *buf, size_t cap,
			   size_t *len)
{
	uint8_t payload[SPOOR_FRAME_PAYLOAD_MAX];
	struct spoor_frame f;
	size_t n = 0, i;
	int k;

	switch (rnd_below(4)) {
	case 0:		/* noise */
		for (n = 1 + rnd_below(40); n && *len < cap; n--)
			buf[(*len)++] = (uint8_t)rnd();
		return;
	case 1:		/* nulls, often a sync sequence */
		k = spoor_encap_sync_sequence(ec, 1 + (unsigned)rnd_below(60), buf + *len, cap - *len);
		*len += k > 0 ? (size_t)k : 0;
		return;
	default:	/* frames */
		memset(&f, 0, sizeof(f));
		f.msg = SPOOR_MSG_TE_INST;
		for (n = 1 + rnd_below(8); n; n--) {
			f.payload_len = 1 + (uint32_t)rnd_below(12);
			for (i = 0; i < f.payload_len; i++)
				payload[i] = (uint8_t)rnd();
			f.payload = payload;
			f.has_timestamp = ec->ts_bytes && (rnd() & 1);
			f.timestamp = rnd() & 0xffff;
			if (cap - *len < SPOOR_FRAME_MAX)
				return;
			k = spoor_encap_encode(ec, &f, buf + *len, cap - *len);
			*len += k > 0 ? (size_t)k : 0;
		}
	}
}

/* Random configurations on random mixes of noise, nulls and frames: chunk-independent, exact. */
static void test_random_streams(void)
{
	struct spoor_deframe_config cfg;
	static uint8_t buf[4096];
	uint64_t frames = 0, losses = 0, syncs = 0, truncs = 0, cross = 0;
	unsigned it, bad = 0;
	struct run x;
	size_t len, i;

	for (it = 0; it < 400; it++) {
		random_config(&cfg);
		CHECK_EQ(spoor_encap_config_check(&cfg.encap), 0);
		len = 0;
		while (len < sizeof(buf) - 64 && rnd_below(60))
			random_segment(&cfg.encap, buf, sizeof(buf), &len);
		run_three_ways(&cfg, buf, len, &x);
		if (x.st.bytes != len || x.st.pending_bytes)
			bad++;
		frames += x.st.frames;
		losses += x.st.sync_losses;
		syncs += x.st.syncs;
		truncs += x.st.truncated_bytes != 0;
		for (i = 0; i < x.n; i++)
			cross += x.recs[i].reason == SPOOR_E_CROSS_BLOCK;
		run_free(&x);
	}
	CHECK_EQ(bad, 0);
	/* the mixes reach every path */
	CHECK(frames > 1000 && losses > 100 && syncs > 100 && truncs > 10 && cross > 10);
}

int main(int argc, char **argv)
{
	check_args(argc, argv,
		   "Tests for the streaming deframer: conformance vectors and corrupted copies.");
	test_api();
	test_gap();
	test_payload_room();
	test_garbage_start();
	test_vectors();
	test_robustness();
	test_resume();
	test_blocks();
	test_atb_lanes();
	test_random_streams();
	return check_done();
}
