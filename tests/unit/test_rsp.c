// SPDX-License-Identifier: MIT
/* Tests for the GDB Remote Serial Protocol codec (rsp.h). */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "rng.h"
#include "spoor/error.h"
#include "spoor/rsp.h"

#define MAXI 64

struct got {
	struct spoor_rsp_item it[MAXI];
	char data[MAXI][512];
	char raw[MAXI][512];
	size_t n;
};

/* Feeds @s (@len bytes) in chunks of @chunk and collects the items (bodies copied). */
static void run(struct spoor_rsp_decoder *d, const void *s, size_t len, size_t chunk,
		struct got *g)
{
	const uint8_t *p = s;

	g->n = 0;
	for (size_t off = 0; off < len; off += chunk) {
		size_t k = len - off < chunk ? len - off : chunk;
		struct spoor_rsp_item it;
		int r;

		CHECK_EQ(spoor_rsp_feed(d, p + off, k), 0);
		while ((r = spoor_rsp_next(d, &it, sizeof(it))) > 0) {
			if (g->n == MAXI)
				continue;
			g->it[g->n] = it;
			if (it.data && it.len < 512)
				memcpy(g->data[g->n], it.data, it.len + 1);
			if (it.raw && it.raw_len < 512) {
				memcpy(g->raw[g->n], it.raw, it.raw_len);
				g->raw[g->n][it.raw_len] = '\0';
			}
			g->n++;
		}
		CHECK_EQ(r, 0);
	}
}

static void test_args(void)
{
	struct spoor_rsp_decoder *d = spoor_rsp_decoder_new(NULL);
	struct spoor_rsp_item it;
	uint8_t out[16];

	CHECK(d != NULL);
	CHECK_EQ(spoor_rsp_feed(NULL, out, 1), SPOOR_E_INVAL);
	CHECK_EQ(spoor_rsp_feed(d, NULL, 1), SPOOR_E_INVAL);
	CHECK_EQ(spoor_rsp_next(NULL, &it, sizeof(it)), SPOOR_E_INVAL);
	CHECK_EQ(spoor_rsp_next(d, NULL, sizeof(it)), SPOOR_E_INVAL);
	CHECK_EQ(spoor_rsp_next(d, &it, sizeof(it)), 0);
	/* A chunk must be consumed before the next. */
	CHECK_EQ(spoor_rsp_feed(d, (const uint8_t *)"++", 2), 0);
	CHECK_EQ(spoor_rsp_feed(d, (const uint8_t *)"+", 1), SPOOR_E_INVAL);
	CHECK_EQ(spoor_rsp_next(d, &it, sizeof(it)), SPOOR_RSP_ACK);
	CHECK_EQ(spoor_rsp_next(d, &it, sizeof(it)), SPOOR_RSP_ACK);
	CHECK_EQ(it.offset, 1);
	CHECK_EQ(spoor_rsp_next(d, &it, sizeof(it)), 0);
	CHECK_EQ(spoor_rsp_frame('x', "a", 1, out, sizeof(out)), SPOOR_E_INVAL);
	CHECK_EQ(spoor_rsp_frame('$', NULL, 1, out, sizeof(out)), SPOOR_E_INVAL);
	CHECK_EQ(spoor_rsp_frame('$', "abc", 3, out, 5), SPOOR_E_NOSPACE);
	CHECK_EQ(spoor_rsp_frame('$', "", 0, out, 4), 4);
	CHECK(!memcmp(out, "$#00", 4));
	spoor_rsp_decoder_free(d);
	spoor_rsp_decoder_free(NULL);
	spoor_rsp_decoder_reset(NULL);
}

static void test_kinds(void)
{
	struct spoor_rsp_decoder *d = spoor_rsp_decoder_new(NULL);
	static const char s[] = "+-$qSupported#37\x03%Stop:T05#99$#00$OK#9A";
	struct got g;

	run(d, s, strlen(s), 1000, &g);
	CHECK_EQ(g.n, 7);
	CHECK_EQ(g.it[0].kind, SPOOR_RSP_ACK);
	CHECK_EQ(g.it[1].kind, SPOOR_RSP_NAK);
	CHECK_EQ(g.it[2].kind, SPOOR_RSP_PACKET);
	CHECK(!strcmp(g.data[2], "qSupported"));
	CHECK(!strcmp(g.raw[2], "$qSupported#37"));
	CHECK_EQ(g.it[2].offset, 2);
	CHECK_EQ(g.it[3].kind, SPOOR_RSP_INTERRUPT);
	CHECK_EQ(g.it[4].kind, SPOOR_RSP_NOTIFY);
	CHECK(!strcmp(g.data[4], "Stop:T05"));
	CHECK_EQ(g.it[5].kind, SPOOR_RSP_PACKET);
	CHECK_EQ(g.it[5].len, 0);
	CHECK_EQ(g.it[6].kind, SPOOR_RSP_PACKET);	/* upper-case checksum digits */
	CHECK(!strcmp(g.data[6], "OK"));
	spoor_rsp_decoder_free(d);
}

static void test_errors(void)
{
	struct spoor_rsp_decoder *d = spoor_rsp_decoder_new(NULL);
	struct got g;
	static const char bad_sum[] = "$qC#00$qC#b4";
	static const char junk[] = "hello\x01$qC#b4xx";
	static const char restart[] = "$qAtt$qC#b4";
	static const char star_first[] = "$*!#00$qC#b4";
	static const char bad_digits[] = "$qC#zz+";
	static const char bad_count[] = "$a*#00$a*$qC#b4";

	run(d, bad_sum, strlen(bad_sum), 3, &g);
	CHECK_EQ(g.n, 2);
	CHECK_EQ(g.it[0].kind, SPOOR_RSP_ERROR);
	CHECK_EQ(g.it[0].reason, SPOOR_E_CHECKSUM);
	CHECK_EQ(g.it[1].kind, SPOOR_RSP_PACKET);
	run(d, junk, strlen(junk), 100, &g);
	CHECK_EQ(g.n, 3);
	CHECK_EQ(g.it[0].kind, SPOOR_RSP_ERROR);
	CHECK_EQ(g.it[0].reason, SPOOR_E_PROTOCOL);
	CHECK_EQ(g.it[0].raw_len, 6);
	CHECK_EQ(g.it[1].kind, SPOOR_RSP_PACKET);
	CHECK_EQ(g.it[2].kind, SPOOR_RSP_ERROR);	/* trailing junk, at the chunk end */
	CHECK_EQ(g.it[2].offset, strlen(bad_sum) + strlen(junk) - 2);
	run(d, restart, strlen(restart), 100, &g);
	CHECK_EQ(g.n, 2);
	CHECK_EQ(g.it[0].kind, SPOOR_RSP_ERROR);
	CHECK_EQ(g.it[0].reason, SPOOR_E_PROTOCOL);
	CHECK_EQ(g.it[1].kind, SPOOR_RSP_PACKET);
	CHECK(!strcmp(g.data[1], "qC"));
	CHECK_EQ(g.it[1].offset, 5 + strlen(junk) + strlen(bad_sum));
	run(d, star_first, strlen(star_first), 1, &g);
	CHECK_EQ(g.n, 2);
	CHECK_EQ(g.it[0].reason, SPOOR_E_PROTOCOL);
	CHECK_EQ(g.it[1].kind, SPOOR_RSP_PACKET);
	run(d, bad_digits, strlen(bad_digits), 2, &g);
	CHECK_EQ(g.n, 2);
	CHECK_EQ(g.it[0].reason, SPOOR_E_PROTOCOL);
	CHECK_EQ(g.it[1].kind, SPOOR_RSP_ACK);
	run(d, bad_count, strlen(bad_count), 100, &g);
	CHECK_EQ(g.n, 3);
	CHECK_EQ(g.it[0].reason, SPOOR_E_PROTOCOL);
	CHECK_EQ(g.it[1].reason, SPOOR_E_PROTOCOL);
	CHECK_EQ(g.it[2].kind, SPOOR_RSP_PACKET);
	spoor_rsp_decoder_free(d);
}

/* Escapes, run lengths, binary bytes and the size limit. */
static void test_body(void)
{
	struct spoor_rsp_config cfg = { .max_packet = 64 };
	struct spoor_rsp_decoder *d = spoor_rsp_decoder_new(&cfg);
	uint8_t bin[256], framed[600];
	struct got g;
	int n;

	/* "0* " is 0 then 3 more; '}' escapes. */
	n = spoor_rsp_frame('$', "x", 1, framed, sizeof(framed));
	CHECK_EQ(n, 5);
	{
		static const char s[] = "$0* }]}\x03}\x04}\x0a#";
		uint8_t sum = 0;
		char full[64];

		for (size_t i = 1; i < strlen(s) - 1; i++)
			sum = (uint8_t)(sum + (uint8_t)s[i]);
		snprintf(full, sizeof(full), "%s%02x", s, sum);
		run(d, full, strlen(full), 1, &g);
		CHECK_EQ(g.n, 1);
		CHECK_EQ(g.it[0].kind, SPOOR_RSP_PACKET);
		CHECK_EQ(g.it[0].len, 8);
		CHECK(!memcmp(g.data[0], "0000}#$*", 8));
	}
	/* Every byte value, framed and decoded. */
	for (int i = 0; i < 256; i++)
		bin[i] = (uint8_t)i;
	spoor_rsp_decoder_free(d);
	cfg.max_packet = 256;
	d = spoor_rsp_decoder_new(&cfg);
	n = spoor_rsp_frame('$', bin, 256, framed, sizeof(framed));
	CHECK(n > 260);
	run(d, framed, (size_t)n, 7, &g);
	CHECK_EQ(g.n, 1);
	CHECK_EQ(g.it[0].kind, SPOOR_RSP_PACKET);
	CHECK_EQ(g.it[0].len, 256);
	CHECK(!memcmp(g.data[0], bin, 256));
	CHECK_EQ(g.it[0].raw_len, (size_t)n);
	/* One byte over the limit: an error, then the next packet. */
	{
		uint8_t big[300];

		memset(big, 'a', sizeof(big));
		n = spoor_rsp_frame('$', big, 257, framed, sizeof(framed));
		memcpy(framed + n, "$qC#b4", 6);
		run(d, framed, (size_t)n + 6, 64, &g);
		CHECK_EQ(g.n, 2);
		CHECK_EQ(g.it[0].kind, SPOOR_RSP_ERROR);
		CHECK_EQ(g.it[0].reason, SPOOR_E_TOO_LONG);
		CHECK_EQ(g.it[1].kind, SPOOR_RSP_PACKET);
		/* Run length past the limit too. */
		run(d, "$a*~a*~a*~#00", 13, 13, &g);
		CHECK_EQ(g.n, 1);
		CHECK_EQ(g.it[0].reason, SPOOR_E_TOO_LONG);
	}
	/* A smaller item struct gets its first bytes only. */
	{
		struct spoor_rsp_item it;

		memset(&it, 0x55, sizeof(it));
		spoor_rsp_feed(d, (const uint8_t *)"+", 1);
		CHECK_EQ(spoor_rsp_next(d, &it, sizeof(it.kind)), SPOOR_RSP_ACK);
		CHECK_EQ(it.kind, SPOOR_RSP_ACK);
		CHECK_EQ(it.offset, 0x5555555555555555ull);
	}
	spoor_rsp_decoder_free(d);
}

/* Random bodies framed, concatenated, fed in random chunks: the same bodies back. */
static void test_random(void)
{
	struct spoor_rsp_decoder *d = spoor_rsp_decoder_new(NULL);
	static uint8_t stream[1 << 20], bodies[200][300];
	size_t lens[200], n = 0, got = 0, bad = 0;

	for (int i = 0; i < 200; i++) {
		int k;

		lens[i] = rnd_below(300);
		for (size_t j = 0; j < lens[i]; j++)
			bodies[i][j] = rnd_below(4) ? (uint8_t)rnd_below(256) : (uint8_t)"$#}*"[rnd_below(4)];
		k = spoor_rsp_frame(i % 7 ? '$' : '%', bodies[i], lens[i], stream + n,
				    sizeof(stream) - n);
		CHECK(k > 0);
		n += (size_t)(k > 0 ? k : 0);
		if (i % 5 == 0)
			stream[n++] = '+';
	}
	for (int round = 0; round < 20; round++) {
		size_t off = 0;

		got = 0;
		spoor_rsp_decoder_reset(d);
		while (off < n) {
			size_t k = 1 + rnd_below(round < 5 ? 3 : 2000);
			struct spoor_rsp_item it;
			int r;

			if (k > n - off)
				k = n - off;
			spoor_rsp_feed(d, stream + off, k);
			while ((r = spoor_rsp_next(d, &it, sizeof(it))) > 0) {
				if (r == SPOOR_RSP_ACK)
					continue;
				if (got >= 200 || it.len != lens[got] ||
				    memcmp(it.data, bodies[got], it.len) || it.data[it.len] ||
				    r != (got % 7 ? SPOOR_RSP_PACKET : SPOOR_RSP_NOTIFY))
					bad++;
				got++;
			}
			off += k;
		}
		CHECK_EQ(got, 200);
	}
	CHECK_EQ(bad, 0);
	spoor_rsp_decoder_free(d);
}

static void test_hex(void)
{
	uint8_t b[4];
	char h[9];

	CHECK_EQ(spoor_rsp_hex("\x01\xab\xff", 3, h), 6);
	h[6] = '\0';
	CHECK(!strcmp(h, "01abff"));
	CHECK_EQ(spoor_rsp_unhex("01ABff", 6, b, sizeof(b)), 3);
	CHECK(!memcmp(b, "\x01\xab\xff", 3));
	CHECK_EQ(spoor_rsp_unhex("abc", 3, b, sizeof(b)), SPOOR_E_PROTOCOL);
	CHECK_EQ(spoor_rsp_unhex("zz", 2, b, sizeof(b)), SPOOR_E_PROTOCOL);
	CHECK_EQ(spoor_rsp_unhex("0102030405", 10, b, sizeof(b)), SPOOR_E_NOSPACE);
	CHECK_EQ(spoor_rsp_unhex("", 0, b, sizeof(b)), 0);
}

int main(int argc, char **argv)
{
	check_args(argc, argv, "Tests for the GDB Remote Serial Protocol codec (rsp.h).");
	test_args();
	test_kinds();
	test_errors();
	test_body();
	test_random();
	test_hex();
	return check_done();
}
