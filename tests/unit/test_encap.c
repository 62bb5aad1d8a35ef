// SPDX-License-Identifier: MIT
/* Unit tests for the encapsulation codecs (encap.c). */
#include <string.h>

#include "check.h"
#include "rng.h"
#include "spoor/encap.h"
#include "spoor/error.h"

static void test_defaults(void)
{
	struct spoor_encap_config c;

	CHECK_EQ(spoor_encap_config_init(&c, SPOOR_ENCAP_RAW), 0);
	CHECK_EQ(c.src_bits, 0);
	CHECK_EQ(c.ts_bytes, 0);
	CHECK_EQ(c.type_bits, 0);
	CHECK_EQ(c.type_te_inst, 2);
	CHECK_EQ(c.type_te_data, 3);
	CHECK_EQ(spoor_encap_config_check(&c), 0);

	CHECK_EQ(spoor_encap_config_init(&c, SPOOR_ENCAP_SIEMENS), 0);
	CHECK_EQ(c.kind, SPOOR_ENCAP_SIEMENS);
	CHECK_EQ(c.src_bits, 6);
	CHECK_EQ(c.ts_bytes, 2);
	CHECK_EQ(c.type_bits, 2);
	CHECK_EQ(c.type_te_inst, 2);
	CHECK_EQ(c.type_te_data, 3);
	CHECK_EQ(spoor_encap_config_check(&c), 0);

	CHECK_EQ(spoor_encap_config_init(&c, SPOOR_ENCAP_ATB), 0);
	CHECK_EQ(c.src_bits, 0);
	CHECK_EQ(c.ts_bytes, 2);
	CHECK_EQ(c.type_bits, 0);
	CHECK_EQ(spoor_encap_config_check(&c), 0);

	CHECK_EQ(spoor_encap_config_init(&c, SPOOR_ENCAP_ETRACE), 0);
	CHECK_EQ(c.src_bits, 0);
	CHECK_EQ(c.ts_bytes, 0);
	CHECK_EQ(c.type_bits, 0);
	CHECK_EQ(c.type_te_inst, 0);
	CHECK_EQ(c.type_te_data, 1);
	CHECK_EQ(spoor_encap_config_check(&c), 0);

	CHECK_EQ(spoor_encap_config_init(NULL, SPOOR_ENCAP_RAW), SPOOR_E_INVAL);
	CHECK_EQ(spoor_encap_config_init(&c, (enum spoor_encap_kind)9), SPOOR_E_INVAL);
}

static void test_config_check(void)
{
	struct spoor_encap_config c;

	spoor_encap_config_init(&c, SPOOR_ENCAP_ETRACE);
	c.src_bits = 17;
	CHECK_EQ(spoor_encap_config_check(&c), SPOOR_E_INVAL);
	c.src_bits = 16;
	c.ts_bytes = 9;
	CHECK_EQ(spoor_encap_config_check(&c), SPOOR_E_INVAL);
	c.ts_bytes = 8;
	c.type_bits = 9;
	CHECK_EQ(spoor_encap_config_check(&c), SPOOR_E_INVAL);
	c.type_bits = 1;
	CHECK_EQ(spoor_encap_config_check(&c), 0);
	c.type_te_data = 2;	/* does not fit one bit */
	CHECK_EQ(spoor_encap_config_check(&c), SPOOR_E_INVAL);
	c.type_te_data = 0;	/* same as te_inst */
	CHECK_EQ(spoor_encap_config_check(&c), SPOOR_E_INVAL);

	spoor_encap_config_init(&c, SPOOR_ENCAP_RAW);
	c.ts_bytes = 2;
	CHECK_EQ(spoor_encap_config_check(&c), SPOOR_E_INVAL);
	spoor_encap_config_init(&c, SPOOR_ENCAP_ATB);
	c.src_bits = 8;
	CHECK_EQ(spoor_encap_config_check(&c), SPOOR_E_INVAL);
	CHECK_EQ(spoor_encap_config_check(NULL), SPOOR_E_INVAL);
}

static void test_kind_names(void)
{
	enum spoor_encap_kind k = SPOOR_ENCAP_RAW;

	CHECK_EQ(spoor_encap_kind_parse("siemens", &k), 0);
	CHECK_EQ(k, SPOOR_ENCAP_SIEMENS);
	CHECK_EQ(spoor_encap_kind_parse("etrace-encap", &k), 0);
	CHECK_EQ(k, SPOOR_ENCAP_ETRACE);
	CHECK_EQ(spoor_encap_kind_parse("atb", &k), 0);
	CHECK_EQ(k, SPOOR_ENCAP_ATB);
	CHECK_EQ(spoor_encap_kind_parse("raw", &k), 0);
	CHECK_EQ(k, SPOOR_ENCAP_RAW);
	CHECK_EQ(spoor_encap_kind_parse("etrace", &k), SPOOR_E_INVAL);
	CHECK_EQ(spoor_encap_kind_parse(NULL, &k), SPOOR_E_INVAL);
	CHECK_EQ(spoor_encap_kind_parse("raw", NULL), SPOOR_E_INVAL);
	CHECK(!strcmp(spoor_encap_kind_name(SPOOR_ENCAP_ETRACE), "etrace-encap"));
	CHECK(!strcmp(spoor_encap_kind_name(SPOOR_ENCAP_SIEMENS), "siemens"));
	CHECK(!strcmp(spoor_encap_kind_name((enum spoor_encap_kind)7), "unknown"));
}

/* The spec's Siemens transport example: 06 81 32 04 00 00 02. */
static void test_siemens_example(void)
{
	static const uint8_t wire[] = { 0x06, 0x81, 0x32, 0x04, 0x00, 0x00, 0x02 };
	static const uint8_t payload[] = { 0x32, 0x04, 0x00, 0x00, 0x02 };
	struct spoor_encap_config c;
	struct spoor_frame f;
	uint8_t scratch[SPOOR_FRAME_PAYLOAD_MAX + 1], out[SPOOR_FRAME_MAX];

	spoor_encap_config_init(&c, SPOOR_ENCAP_SIEMENS);
	CHECK_EQ(spoor_encap_frame_size(&c, wire[0]), sizeof(wire));
	memset(&f, 0xa5, sizeof(f));
	CHECK_EQ(spoor_encap_decode(&c, wire, sizeof(wire), &f, scratch), 0);
	CHECK_EQ(f.size, sizeof(wire));
	CHECK_EQ(f.source, 1);
	CHECK_EQ(f.type, 2);
	CHECK_EQ(f.msg, SPOOR_MSG_TE_INST);
	CHECK_EQ(f.flow, 0);
	CHECK(!f.has_timestamp);
	CHECK_EQ(f.payload_len, sizeof(payload));
	CHECK(!memcmp(f.payload, payload, sizeof(payload)));
	CHECK(f.payload == wire + 2);	/* byte-aligned: no copy */

	CHECK_EQ(spoor_encap_encode(&c, &f, out, sizeof(out)), sizeof(wire));
	CHECK(!memcmp(out, wire, sizeof(wire)));
	/* the same as te_data: type 3 */
	f.msg = SPOOR_MSG_TE_DATA;
	CHECK_EQ(spoor_encap_encode(&c, &f, out, sizeof(out)), sizeof(wire));
	CHECK_EQ(out[1], 0xc1);
	CHECK_EQ(spoor_encap_decode(&c, out, sizeof(wire), &f, scratch), 0);
	CHECK_EQ(f.msg, SPOOR_MSG_TE_DATA);
	/* with a timestamp: extend = 1, 2 bytes after the srcID bits */
	f.msg = SPOOR_MSG_TE_INST;
	f.has_timestamp = true;
	f.timestamp = 0xbeef;
	f.payload = payload;
	CHECK_EQ(spoor_encap_encode(&c, &f, out, sizeof(out)), sizeof(wire) + 2);
	CHECK_EQ(out[0], 0x86);
	CHECK_EQ(spoor_encap_decode(&c, out, sizeof(wire) + 2, &f, scratch), 0);
	CHECK(f.has_timestamp);
	CHECK_EQ(f.timestamp, 0xbeef);
	CHECK_EQ(f.source, 1);
	CHECK_EQ(f.payload_len, sizeof(payload));
	CHECK(!memcmp(f.payload, payload, sizeof(payload)));
}

/* ATB: no srcID, no type; 05 32 04 00 00 02. */
static void test_atb_example(void)
{
	static const uint8_t wire[] = { 0x05, 0x32, 0x04, 0x00, 0x00, 0x02 };
	struct spoor_encap_config c;
	struct spoor_frame f;
	uint8_t scratch[SPOOR_FRAME_PAYLOAD_MAX + 1], out[SPOOR_FRAME_MAX];

	spoor_encap_config_init(&c, SPOOR_ENCAP_ATB);
	CHECK_EQ(spoor_encap_frame_size(&c, wire[0]), 6);
	CHECK_EQ(spoor_encap_decode(&c, wire, sizeof(wire), &f, scratch), 0);
	CHECK_EQ(f.payload_len, 5);
	CHECK(!memcmp(f.payload, wire + 1, 5));
	CHECK_EQ(f.msg, SPOOR_MSG_TE_INST);
	CHECK_EQ(f.source, 0);
	CHECK(!f.has_timestamp);
	CHECK_EQ(spoor_encap_encode(&c, &f, out, sizeof(out)), 6);
	CHECK(!memcmp(out, wire, sizeof(wire)));
	/* te_data has no type value to travel in */
	f.msg = SPOOR_MSG_TE_DATA;
	CHECK_EQ(spoor_encap_encode(&c, &f, out, sizeof(out)), SPOOR_E_INVAL);
	/* extend: 2-byte timestamp before the payload */
	CHECK_EQ(spoor_encap_frame_size(&c, 0x85), 8);
}

/* Vector B's first frame: S=8, T=2, Y=1: 82 05 34 12 3e 00 carries 1f. */
static void test_vector_b_frame(void)
{
	static const uint8_t wire[] = { 0x82, 0x05, 0x34, 0x12, 0x3e, 0x00 };
	struct spoor_encap_config c;
	struct spoor_frame f;
	uint8_t scratch[SPOOR_FRAME_PAYLOAD_MAX + 1], out[SPOOR_FRAME_MAX];

	spoor_encap_config_init(&c, SPOOR_ENCAP_ETRACE);
	c.src_bits = 8;
	c.ts_bytes = 2;
	c.type_bits = 1;
	CHECK_EQ(spoor_encap_frame_size(&c, wire[0]), 6);
	CHECK_EQ(spoor_encap_decode(&c, wire, sizeof(wire), &f, scratch), 0);
	CHECK_EQ(f.source, 5);
	CHECK(f.has_timestamp);
	CHECK_EQ(f.timestamp, 0x1234);
	CHECK_EQ(f.type, 0);
	CHECK_EQ(f.msg, SPOOR_MSG_TE_INST);
	CHECK_EQ(f.payload_len, 1);
	CHECK_EQ(f.payload[0], 0x1f);
	CHECK_EQ(spoor_encap_encode(&c, &f, out, sizeof(out)), 6);
	CHECK(!memcmp(out, wire, sizeof(wire)));
}

/* Padding bits: dropped when they repeat the last bit, else one more byte. */
static void test_padding(void)
{
	static const uint8_t extra[] = { 0x02, 0x00, 0x01 };	/* 15 bits 0x0080 */
	static const uint8_t pad[] = { 0x02, 0x00, 0xff };	/* 15 bits 0x7f80 */
	static const uint8_t small[] = { 0x01, 0x80 };		/* 7 bits 0x40 */
	struct spoor_encap_config c;
	struct spoor_frame f;
	uint8_t scratch[SPOOR_FRAME_PAYLOAD_MAX + 1];

	spoor_encap_config_init(&c, SPOOR_ENCAP_ETRACE);
	c.type_bits = 1;
	CHECK_EQ(spoor_encap_decode(&c, extra, sizeof(extra), &f, scratch), 0);
	CHECK_EQ(f.payload_len, 2);
	CHECK_EQ(f.payload[0], 0x80);
	CHECK_EQ(f.payload[1], 0x00);
	CHECK(f.payload == scratch);
	CHECK_EQ(spoor_encap_decode(&c, pad, sizeof(pad), &f, scratch), 0);
	CHECK_EQ(f.payload_len, 1);
	CHECK_EQ(f.payload[0], 0x80);
	CHECK_EQ(spoor_encap_decode(&c, small, sizeof(small), &f, scratch), 0);
	CHECK_EQ(f.payload_len, 1);
	CHECK_EQ(f.payload[0], 0xc0);
}

static void test_frame_size(void)
{
	struct spoor_encap_config c;

	spoor_encap_config_init(&c, SPOOR_ENCAP_RAW);
	CHECK_EQ(spoor_encap_frame_size(&c, 0x00), 1);
	CHECK_EQ(spoor_encap_frame_size(&c, 0x41), 2);
	CHECK_EQ(spoor_encap_frame_size(&c, 0x7f), 32);
	CHECK_EQ(spoor_encap_frame_size(&c, 0x80), SPOOR_E_BAD_HEADER);
	CHECK_EQ(spoor_encap_frame_size(&c, 0xc5), SPOOR_E_BAD_HEADER);
	CHECK_EQ(spoor_encap_frame_size(&c, 0x01), SPOOR_E_BAD_HEADER);	/* type 0 */
	CHECK_EQ(spoor_encap_frame_size(&c, 0x23), SPOOR_E_BAD_HEADER);	/* type 1 */
	CHECK_EQ(spoor_encap_frame_size(NULL, 0x41), SPOOR_E_INVAL);

	spoor_encap_config_init(&c, SPOOR_ENCAP_ETRACE);
	CHECK_EQ(spoor_encap_frame_size(&c, 0x80), 1);	/* null.alignment */
	CHECK_EQ(spoor_encap_frame_size(&c, 0x60), 1);
	CHECK_EQ(spoor_encap_frame_size(&c, 0x81), SPOOR_E_BAD_HEADER);	/* extend, T = 0 */
	CHECK_EQ(spoor_encap_frame_size(&c, 0x21), 2);
	c.src_bits = 7;
	c.type_bits = 8;
	CHECK_EQ(spoor_encap_frame_size(&c, 0x01), SPOOR_E_BAD_LENGTH);	/* 16 bits > 8 */
	CHECK_EQ(spoor_encap_frame_size(&c, 0x02), 3);
	c.src_bits = 16;
	c.ts_bytes = 8;
	c.type_bits = 0;
	CHECK_EQ(spoor_encap_frame_size(&c, 0x9f), SPOOR_FRAME_MAX);

	spoor_encap_config_init(&c, SPOOR_ENCAP_SIEMENS);
	/* srcID and type only */
	CHECK_EQ(spoor_encap_frame_size(&c, 0x01), SPOOR_E_BAD_LENGTH);
	CHECK_EQ(spoor_encap_frame_size(&c, 0x81), SPOOR_E_BAD_LENGTH);
	CHECK_EQ(spoor_encap_frame_size(&c, 0x82), 5);
	CHECK_EQ(spoor_encap_frame_size(&c, 0x80), 1);
}

static void test_decode_errors(void)
{
	static const uint8_t wire[] = { 0x41, 0x1f };
	static const uint8_t bad[] = { 0x81, 0x1f };
	struct spoor_encap_config c;
	struct spoor_frame f;
	uint8_t scratch[SPOOR_FRAME_PAYLOAD_MAX + 1];

	spoor_encap_config_init(&c, SPOOR_ENCAP_RAW);
	CHECK_EQ(spoor_encap_decode(&c, wire, 2, &f, scratch), 0);
	CHECK_EQ(f.type, 2);
	CHECK_EQ(f.msg, SPOOR_MSG_TE_INST);
	CHECK_EQ(spoor_encap_decode(&c, wire, 1, &f, scratch), SPOOR_E_INVAL);
	CHECK_EQ(spoor_encap_decode(&c, wire, 3, &f, scratch), SPOOR_E_INVAL);
	CHECK_EQ(spoor_encap_decode(&c, bad, 2, &f, scratch), SPOOR_E_BAD_HEADER);
	CHECK_EQ(spoor_encap_decode(&c, (const uint8_t *)"\0", 1, &f, scratch), SPOOR_E_INVAL);
	CHECK_EQ(spoor_encap_decode(NULL, wire, 2, &f, scratch), SPOOR_E_INVAL);
	CHECK_EQ(spoor_encap_decode(&c, NULL, 2, &f, scratch), SPOOR_E_INVAL);
	CHECK_EQ(spoor_encap_decode(&c, wire, 2, NULL, scratch), SPOOR_E_INVAL);
	CHECK_EQ(spoor_encap_decode(&c, wire, 2, &f, NULL), SPOOR_E_INVAL);
}

static void test_encode_errors(void)
{
	uint8_t payload[32] = { 0x12 }, out[SPOOR_FRAME_MAX];
	struct spoor_encap_config c;
	struct spoor_frame f;

	memset(&f, 0, sizeof(f));
	f.payload = payload;
	f.payload_len = 1;
	spoor_encap_config_init(&c, SPOOR_ENCAP_RAW);
	CHECK_EQ(spoor_encap_encode(&c, &f, out, sizeof(out)), 2);
	CHECK_EQ(out[0], 0x41);
	f.msg = SPOOR_MSG_TE_DATA;
	CHECK_EQ(spoor_encap_encode(&c, &f, out, sizeof(out)), 2);
	CHECK_EQ(out[0], 0x61);
	f.msg = SPOOR_MSG_OTHER;
	f.type = 1;
	CHECK_EQ(spoor_encap_encode(&c, &f, out, sizeof(out)), SPOOR_E_INVAL);
	f.type = 2;
	CHECK_EQ(spoor_encap_encode(&c, &f, out, sizeof(out)), 2);
	f.msg = SPOOR_MSG_TE_INST;
	f.has_timestamp = true;
	CHECK_EQ(spoor_encap_encode(&c, &f, out, sizeof(out)), SPOOR_E_INVAL);
	f.has_timestamp = false;
	CHECK_EQ(spoor_encap_encode(&c, &f, out, 1), SPOOR_E_NOSPACE);
	f.payload_len = 0;
	CHECK_EQ(spoor_encap_encode(&c, &f, out, sizeof(out)), SPOOR_E_INVAL);
	f.payload_len = 31;
	CHECK_EQ(spoor_encap_encode(&c, &f, out, sizeof(out)), 32);
	f.payload_len = 32;
	CHECK_EQ(spoor_encap_encode(&c, &f, out, sizeof(out)), SPOOR_E_TOO_LONG);

	spoor_encap_config_init(&c, SPOOR_ENCAP_ETRACE);
	c.src_bits = 7;
	c.type_bits = 8;
	f.payload_len = 30;	/* 7 + 8 + 240 bits: 32 bytes */
	CHECK_EQ(spoor_encap_encode(&c, &f, out, sizeof(out)), SPOOR_E_TOO_LONG);
	f.payload_len = 29;
	CHECK_EQ(spoor_encap_encode(&c, &f, out, sizeof(out)), 32);
	f.source = 0x80;	/* does not fit 7 bits */
	CHECK_EQ(spoor_encap_encode(&c, &f, out, sizeof(out)), SPOOR_E_INVAL);
	f.source = 0;
	f.msg = SPOOR_MSG_OTHER;
	c.type_bits = 4;
	f.type = 0x10;		/* does not fit 4 bits */
	CHECK_EQ(spoor_encap_encode(&c, &f, out, sizeof(out)), SPOOR_E_INVAL);
	f.type = 0x0f;
	CHECK(spoor_encap_encode(&c, &f, out, sizeof(out)) > 0);
	CHECK_EQ(spoor_encap_encode(NULL, &f, out, sizeof(out)), SPOOR_E_INVAL);
	CHECK_EQ(spoor_encap_encode(&c, NULL, out, sizeof(out)), SPOOR_E_INVAL);
	CHECK_EQ(spoor_encap_encode(&c, &f, NULL, sizeof(out)), SPOOR_E_INVAL);
	f.type = 0;
	f.payload = NULL;
	CHECK_EQ(spoor_encap_encode(&c, &f, out, sizeof(out)), SPOOR_E_INVAL);
}

/* Returns a random payload of @n bytes in @p, its end often sign-padded. */
static void random_payload(uint8_t *p, unsigned n)
{
	unsigned i, k;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)rnd();
	switch (rnd_below(4)) {
	case 0:		/* last byte all sign */
		p[n - 1] = (rnd() & 1) ? 0xff : 0x00;
		break;
	case 1:		/* top bits of the last byte repeat one bit */
		k = 1 + rnd_below(7);
		if (p[n - 1] & (1u << (k - 1)))
			p[n - 1] |= (uint8_t)(0xffu << k);
		else
			p[n - 1] &= (uint8_t)((1u << k) - 1);
		break;
	default:
		break;
	}
}

/* Picks a random valid ETRACE, SIEMENS, ATB or RAW configuration into @c. */
static void random_config(struct spoor_encap_config *c)
{
	unsigned kind = rnd_below(8);

	if (kind == 0) {
		spoor_encap_config_init(c, SPOOR_ENCAP_RAW);
		return;
	}
	if (kind == 1) {
		spoor_encap_config_init(c, SPOOR_ENCAP_SIEMENS);
		return;
	}
	if (kind == 2) {
		spoor_encap_config_init(c, SPOOR_ENCAP_ATB);
		c->ts_bytes = rnd_below(9);
		return;
	}
	spoor_encap_config_init(c, SPOOR_ENCAP_ETRACE);
	c->src_bits = rnd_below(17);
	c->ts_bytes = rnd_below(9);
	c->type_bits = rnd_below(9);
	if (c->type_bits) {
		c->type_te_inst = rnd_below(1u << c->type_bits);
		c->type_te_data = c->type_te_inst ^ 1;
	}
}

/* Fills @f with random fields valid under @c and a payload in @p. */
static void random_frame(const struct spoor_encap_config *c, struct spoor_frame *f, uint8_t *p)
{
	unsigned max = (248 - c->src_bits % 8 - c->type_bits) / 8;

	memset(f, 0, sizeof(*f));
	f->payload_len = 1 + rnd_below(max);
	random_payload(p, f->payload_len);
	f->payload = p;
	f->source = c->src_bits ? (uint32_t)(rnd() & ((1u << c->src_bits) - 1)) : 0;
	f->has_timestamp = c->ts_bytes && (rnd() & 1);
	if (f->has_timestamp) {
		f->timestamp = rnd();
		if (c->ts_bytes < 8)
			f->timestamp &= (1ull << (c->ts_bytes * 8)) - 1;
	}
	f->flow = c->kind == SPOOR_ENCAP_RAW ? 0 : (uint8_t)rnd_below(4);
	f->msg = SPOOR_MSG_TE_INST;
	if (c->kind == SPOOR_ENCAP_RAW || c->type_bits) {
		f->msg = (uint8_t)rnd_below(3);
		if (c->kind == SPOOR_ENCAP_RAW)
			f->type = (uint8_t)(2 + rnd_below(2));
		else
			f->type = (uint8_t)rnd_below(1u << c->type_bits);
	}
}

/* Returns true when @d decodes to the same fields as @f was sent with under @c. */
static bool same_frame(const struct spoor_encap_config *c, const struct spoor_frame *f,
		       const struct spoor_frame *d)
{
	unsigned want_msg = f->msg;

	if (f->msg == SPOOR_MSG_OTHER) {
		if (c->kind == SPOOR_ENCAP_RAW)
			want_msg = f->type == 2 ? SPOOR_MSG_TE_INST : SPOOR_MSG_TE_DATA;
		else if (f->type == c->type_te_inst)
			want_msg = SPOOR_MSG_TE_INST;
		else if (f->type == c->type_te_data)
			want_msg = SPOOR_MSG_TE_DATA;
		if (d->type != f->type)
			return false;
	}
	if (d->msg != want_msg || d->payload_len != f->payload_len)
		return false;
	if (memcmp(d->payload, f->payload, f->payload_len))
		return false;
	if (d->source != f->source || d->has_timestamp != f->has_timestamp)
		return false;
	if (f->has_timestamp && d->timestamp != f->timestamp)
		return false;
	return c->kind == SPOOR_ENCAP_RAW || d->flow == f->flow;
}

/*
 * Returns the size of the frame @out (of @size bytes) shortened to the fewest
 * bytes that still hold its payload once @drop top bits of the payload (which
 * repeat the bit below them) are left out.
 */
static int trim_frame(const struct spoor_encap_config *c, const struct spoor_frame *f,
		      uint8_t *out, int size, unsigned drop)
{
	unsigned bits = c->src_bits % 8 + c->type_bits + f->payload_len * 8 - drop;
	unsigned len = (bits + 7) / 8, old = out[0] & 0x1f;

	if (len >= old)
		return size;
	out[0] = (uint8_t)((out[0] & 0xe0) | len);
	return size - (int)(old - len);
}

/* Returns how many of @b's bits 6..0, from the top, equal bit 7. */
static unsigned sign_run(uint8_t b)
{
	unsigned k = 0, top = b >> 7;

	while (k < 7 && ((b >> (6 - k)) & 1) == top)
		k++;
	return k;
}

/* Returns true when @p's last byte repeats only the last bit of the byte before it. */
static bool last_byte_redundant(const uint8_t *p, unsigned n)
{
	if (n < 2)
		return false;
	return p[n - 1] == ((p[n - 2] & 0x80) ? 0xff : 0x00);
}

static void test_round_trip(void)
{
	uint8_t payload[SPOOR_FRAME_PAYLOAD_MAX], out[SPOOR_FRAME_MAX];
	uint8_t scratch[SPOOR_FRAME_PAYLOAD_MAX + 1];
	struct spoor_encap_config c;
	struct spoor_frame f, d;
	unsigned i, bad = 0, bad_trim = 0, trimmed = 0, drop;
	int size;

	for (i = 0; i < 20000; i++) {
		random_config(&c);
		random_frame(&c, &f, payload);
		size = spoor_encap_encode(&c, &f, out, sizeof(out));
		if (size != spoor_encap_frame_size(&c, out[0]) ||
		    spoor_encap_decode(&c, out, (size_t)size, &d, scratch) ||
		    !same_frame(&c, &f, &d)) {
			bad++;
			continue;
		}
		/* a sender may leave out top payload bits that repeat the sign */
		drop = sign_run(payload[f.payload_len - 1]);
		if (!drop || last_byte_redundant(payload, f.payload_len))
			continue;
		drop = 1 + rnd_below(drop);
		size = trim_frame(&c, &f, out, size, drop);
		if (size != spoor_encap_frame_size(&c, out[0]))
			continue;
		if (size < (int)d.size)
			trimmed++;
		if (spoor_encap_decode(&c, out, (size_t)size, &d, scratch) ||
		    !same_frame(&c, &f, &d))
			bad_trim++;
	}
	CHECK_EQ(bad, 0);
	CHECK_EQ(bad_trim, 0);
	CHECK(trimmed > 100);
}

static void test_sync(void)
{
	struct spoor_encap_config c;
	uint8_t out[64];
	unsigned i, zeros;

	spoor_encap_config_init(&c, SPOOR_ENCAP_ETRACE);
	CHECK_EQ(spoor_encap_sync_run(&c), 31);
	CHECK_EQ(spoor_encap_sync_sequence(&c, 0, out, sizeof(out)), 32);
	for (i = 0, zeros = 0; i < 31; i++)
		zeros += out[i] == 0;
	CHECK_EQ(zeros, 31);
	CHECK_EQ(out[31], 0x80);
	c.src_bits = 8;
	c.ts_bytes = 2;
	CHECK_EQ(spoor_encap_sync_run(&c), 34);
	memset(out, 0xee, sizeof(out));
	CHECK_EQ(spoor_encap_sync_sequence(&c, 0, out, sizeof(out)), 35);
	for (i = 0, zeros = 0; i < 34; i++)
		zeros += out[i] == 0;
	CHECK_EQ(zeros, 34);
	CHECK_EQ(out[34], 0x80);
	CHECK_EQ(out[35], 0xee);
	CHECK_EQ(spoor_encap_sync_sequence(&c, 0, out, 34), SPOOR_E_NOSPACE);

	spoor_encap_config_init(&c, SPOOR_ENCAP_RAW);
	CHECK_EQ(spoor_encap_sync_run(&c), 32);
	memset(out, 0xee, sizeof(out));
	CHECK_EQ(spoor_encap_sync_sequence(&c, 0, out, sizeof(out)), 32);
	CHECK_EQ(out[31], 0);
	CHECK_EQ(out[32], 0xee);
	CHECK_EQ(spoor_encap_sync_sequence(&c, 40, out, sizeof(out)), 40);
	CHECK_EQ(spoor_encap_sync_sequence(&c, 65, out, sizeof(out)), SPOOR_E_NOSPACE);
	CHECK_EQ(spoor_encap_sync_sequence(&c, 0, NULL, 64), SPOOR_E_INVAL);
	spoor_encap_config_init(&c, SPOOR_ENCAP_SIEMENS);
	CHECK_EQ(spoor_encap_sync_run(&c), 34);
	CHECK_EQ(spoor_encap_sync_sequence(&c, 0, out, sizeof(out)), 34);
	spoor_encap_config_init(&c, SPOOR_ENCAP_ATB);
	CHECK_EQ(spoor_encap_sync_run(&c), 34);
}

/* Timestamps widened across the counter's wrap-around. */
static void test_time_widen(void)
{
	struct spoor_encap_config c;

	spoor_encap_config_init(&c, SPOOR_ENCAP_SIEMENS);
	CHECK_EQ(c.ts_bytes, 2);
	CHECK_EQ(spoor_encap_time_widen(&c, 0, false, 0x12345), 0x2345);
	CHECK_EQ(spoor_encap_time_widen(&c, 0x2345, true, 0x2345), 0x2345);
	CHECK_EQ(spoor_encap_time_widen(&c, 0x2345, true, 0x2400), 0x2400);
	/* 0xfff0 → 0x0005: wrapped once, 21 ticks on. */
	CHECK_EQ(spoor_encap_time_widen(&c, 0x3fff0, true, 0x0005), 0x40005);
	/* A stamp "behind" is a whole turn ahead: the counter never runs back. */
	CHECK_EQ(spoor_encap_time_widen(&c, 0x10010, true, 0x000f), 0x2000f);
	c.ts_bytes = 8;
	CHECK_EQ(spoor_encap_time_widen(&c, 5, true, UINT64_C(0xfedcba9876543210)),
		 UINT64_C(0xfedcba9876543210));
	c.ts_bytes = 3;
	CHECK_EQ(spoor_encap_time_widen(&c, 0xfffffe, true, 0x000001), 0x1000001);
	c.ts_bytes = 0;
	CHECK_EQ(spoor_encap_time_widen(&c, 7, true, 3), 3);
	CHECK_EQ(spoor_encap_time_widen(NULL, 7, true, 3), 3);
}

int main(int argc, char **argv)
{
	check_args(argc, argv, "Unit tests for the encapsulation codecs (encap.c).");
	test_defaults();
	test_config_check();
	test_kind_names();
	test_siemens_example();
	test_atb_example();
	test_vector_b_frame();
	test_padding();
	test_frame_size();
	test_decode_errors();
	test_encode_errors();
	test_round_trip();
	test_sync();
	test_time_widen();
	return check_done();
}
