// SPDX-License-Identifier: MIT
/* GDB's branch trace documents from the bounded history: see btrace.h. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "btrace.h"
#include "spoor/error.h"

void gs_text_add(struct gs_text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (t->failed)
		return;
	for (;;) {
		size_t room = t->cap - t->len;

		va_start(ap, fmt);
		n = vsnprintf(t->s ? t->s + t->len : NULL, t->s ? room : 0, fmt, ap);
		va_end(ap);
		if (n < 0) {
			t->failed = true;
			return;
		}
		if (t->s && (size_t)n < room) {
			t->len += (size_t)n;
			return;
		}
		size_t cap = t->cap ? t->cap * 2 : 4096;

		while (cap < t->len + (size_t)n + 1)
			cap *= 2;
		char *s = realloc(t->s, cap);

		if (!s) {
			t->failed = true;
			return;
		}
		t->s = s;
		t->cap = cap;
	}
}

void gs_text_free(struct gs_text *t)
{
	free(t->s);
	memset(t, 0, sizeof(*t));
}

bool gs_btrace_annex(const char *s, enum gs_btrace_annex *annex)
{
	if (!strcmp(s, "all"))
		*annex = GS_BTRACE_ALL;
	else if (!strcmp(s, "new"))
		*annex = GS_BTRACE_NEW;
	else if (!strcmp(s, "delta"))
		*annex = GS_BTRACE_DELTA;
	else
		return false;
	return true;
}

/* Appends one <block/>. */
static void block(struct gs_text *out, uint64_t begin, uint64_t end)
{
	gs_text_add(out, "<block begin=\"0x%" PRIx64 "\" end=\"0x%" PRIx64 "\"/>\n", begin, end);
}

/* Appends blocks [@from, @to) of @source newest first; the oldest begins at 0 with @zero. */
static void blocks(const struct spoor_history *h, uint32_t source, uint64_t from, uint64_t to,
		   bool zero, struct gs_text *out)
{
	for (uint64_t s = to; s > from; s--) {
		const struct spoor_block *b = spoor_history_block(h, source, s - 1);

		block(out, zero && s - 1 == from ? 0 : b->start, b->last);
	}
}

int gs_btrace_read(const struct spoor_history *h, uint32_t source, enum gs_btrace_annex annex,
		   uint64_t pc, struct gs_btrace_reader *r, struct gs_text *out, const char **why)
{
	struct spoor_history_info info;
	const struct spoor_block *first;

	spoor_history_info(h, source, &info, sizeof(info));
	gs_text_add(out, "<?xml version=\"1.0\"?>\n"
		    "<!DOCTYPE btrace SYSTEM \"btrace.dtd\">\n<btrace version=\"1.0\">\n");
	switch (annex) {
	case GS_BTRACE_DELTA:
		if (!r->read) {
			*why = "no earlier read to continue";
			return SPOOR_E_TRACE;
		}
		if (r->next_seq < info.first) {
			*why = "the history dropped blocks since the last read";
			return SPOOR_E_TRACE;
		}
		first = spoor_history_block(h, source, r->next_seq);
		if (first && first->start != r->pc) {
			*why = "the trace does not continue at the last pc";
			return SPOOR_E_TRACE;
		}
		/* The current pc, then what ran since; nothing ran: [0, pc]. */
		block(out, first ? pc : 0, pc);
		blocks(h, source, r->next_seq, info.next, true, out);
		break;
	case GS_BTRACE_NEW:
		if (r->read && r->next_seq == info.next && r->pc == pc)
			break;
		/* fall through */
	case GS_BTRACE_ALL:
		block(out, pc, pc);
		blocks(h, source, info.first, info.next, false, out);
		break;
	}
	gs_text_add(out, "</btrace>\n");
	if (out->failed)
		return SPOOR_E_NOMEM;
	r->read = true;
	r->next_seq = info.next;
	r->pc = pc;
	return 0;
}

void gs_btrace_conf(bool enabled, uint64_t size, struct gs_text *out)
{
	gs_text_add(out, "<?xml version=\"1.0\"?>\n"
		    "<!DOCTYPE btrace-conf SYSTEM \"btrace-conf.dtd\">\n"
		    "<btrace-conf version=\"1.0\">\n");
	if (enabled)
		gs_text_add(out, "<bts size=\"0x%" PRIx64 "\"/>\n", size);
	gs_text_add(out, "</btrace-conf>\n");
}
