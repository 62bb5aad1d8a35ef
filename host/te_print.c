// SPDX-License-Identifier: MIT
/* te_inst packets as CSV (reference flow columns), text and JSON lines. */
#include <inttypes.h>

#include "spoor/te_print.h"

/* Fields printed by CSV, in column order (the reference's 26 columns). */
#define CSV_COLUMNS SPOOR_TE_F_INDEX
/* The reference flow writes its CSV with Python's csv module: CRLF lines. */
#define CSV_EOL "\r\n"

void spoor_te_print_csv_header(FILE *out)
{
	for (int f = 0; f < CSV_COLUMNS; f++)
		fprintf(out, "%s%s", f ? "," : "", spoor_te_field_name(f));
	fputs(CSV_EOL, out);
}

static bool is_data_field(int f)
{
	return f == SPOOR_TE_F_DENABLE || f == SPOOR_TE_F_DLOSS || f == SPOOR_TE_F_DOPTIONS;
}

void spoor_te_print_csv(FILE *out, const struct spoor_te_inst *pkt)
{
	bool data = spoor_te_has(pkt, SPOOR_TE_F_DENABLE) && pkt->v[SPOOR_TE_F_DENABLE];

	for (int f = 0; f < CSV_COLUMNS; f++) {
		if (f)
			fputc(',', out);
		if (!spoor_te_has(pkt, f) || (is_data_field(f) && !data))
			fputc('_', out);
		else if (spoor_te_field_is_hex(f))
			fprintf(out, "%" PRIx64, pkt->v[f]);
		else
			fprintf(out, "%" PRIu64, pkt->v[f]);
	}
	fputs(CSV_EOL, out);
}

const char *spoor_te_kind_name(const struct spoor_te_inst *pkt)
{
	static const char *const sync_names[] = {
		"sync-start", "sync-trap", "sync-context", "sync-support"
	};

	switch (pkt->v[SPOOR_TE_F_FORMAT]) {
	case SPOOR_TE_FORMAT_EXT:
		return pkt->v[SPOOR_TE_F_SUBFORMAT] == SPOOR_TE_EXT_JTC ? "jtc-index" :
								       "branch-count";
	case SPOOR_TE_FORMAT_BRANCH:
		return spoor_te_has(pkt, SPOOR_TE_F_ADDRESS) ? "branch-addr" : "branch-map";
	case SPOOR_TE_FORMAT_ADDR:
		return "addr";
	default:
		return sync_names[pkt->v[SPOOR_TE_F_SUBFORMAT] & 3];
	}
}

/* True when the address field of @pkt is a full address under @mode. */
static bool address_is_full(const struct spoor_te_inst *pkt, enum spoor_addr_mode mode)
{
	return pkt->v[SPOOR_TE_F_FORMAT] == SPOOR_TE_FORMAT_SYNC || mode == SPOOR_ADDR_FULL;
}

static const char *qual_status_name(uint64_t q)
{
	static const char *const names[] = { "no_change", "ended_rep", "trace_lost", "ended_ntr" };

	return names[q & 3];
}

/* Decoded meaning of the packet (status bits, trap kind, qual_status...). */
static void print_meaning_text(FILE *out, const struct spoor_te_inst *pkt)
{
	if (pkt->status & SPOOR_TE_NOTIFY)
		fputs(" [notify]", out);
	if (pkt->status & SPOOR_TE_UPDISCON)
		fputs(" [updiscon]", out);
	if (pkt->status & SPOOR_TE_IRREPORT)
		fputs(" [irreport]", out);
	if (spoor_te_has(pkt, SPOOR_TE_F_QUAL_STATUS))
		fprintf(out, " [%s]", qual_status_name(pkt->v[SPOOR_TE_F_QUAL_STATUS]));
	if (spoor_te_has(pkt, SPOOR_TE_F_INTERRUPT))
		fputs(pkt->v[SPOOR_TE_F_INTERRUPT] ? " [interrupt]" : " [exception]", out);
}

void spoor_te_print_text(FILE *out, const struct spoor_params *p, const struct spoor_frame *frm,
			 const struct spoor_te_inst *pkt, enum spoor_addr_mode mode)
{
	fprintf(out, "%08" PRIx64 " src %-3" PRIu32 " %-13s", frm->offset, frm->source,
		spoor_te_kind_name(pkt));
	for (int f = SPOOR_TE_F_SUBFORMAT + 1; f < SPOOR_TE_NFIELDS; f++) {
		if (!spoor_te_has(pkt, f))
			continue;
		if (f == SPOOR_TE_F_ADDRESS) {
			uint64_t v = pkt->v[f];

			if (address_is_full(pkt, mode))
				fprintf(out, " address=0x%" PRIx64, spoor_te_full_address(p, v));
			else {
				int64_t d = spoor_te_diff_address(p, v);

				fprintf(out, " address=%s0x%" PRIx64 "%s", d < 0 ? "-" : "+",
					d < 0 ? -(uint64_t)d : (uint64_t)d,
					mode == SPOOR_ADDR_UNKNOWN ? "(diff?)" : "");
			}
		} else if (f == SPOOR_TE_F_TVAL || f == SPOOR_TE_F_BRANCH_MAP ||
			   f == SPOOR_TE_F_CONTEXT || f == SPOOR_TE_F_IOPTIONS) {
			fprintf(out, " %s=0x%" PRIx64, spoor_te_field_name(f), pkt->v[f]);
		} else {
			fprintf(out, " %s=%" PRIu64, spoor_te_field_name(f), pkt->v[f]);
		}
	}
	print_meaning_text(out, pkt);
	if (frm->has_timestamp)
		fprintf(out, " ts=%" PRIu64, frm->timestamp);
	fputc('\n', out);
}

void spoor_te_print_json(FILE *out, const struct spoor_params *p, const struct spoor_frame *frm,
			 const struct spoor_te_inst *pkt, enum spoor_addr_mode mode)
{
	fprintf(out, "{\"offset\":%" PRIu64 ",\"source\":%" PRIu32 ",\"kind\":\"%s\"", frm->offset,
		frm->source, spoor_te_kind_name(pkt));
	if (frm->has_timestamp)
		fprintf(out, ",\"timestamp\":%" PRIu64, frm->timestamp);
	for (int f = 0; f < SPOOR_TE_NFIELDS; f++) {
		if (!spoor_te_has(pkt, f))
			continue;
		/* 64-bit values go as hex strings: JSON numbers stop at 2^53. */
		if (spoor_te_field_is_hex(f) || pkt->v[f] > (UINT64_C(1) << 53))
			fprintf(out, ",\"%s\":\"0x%" PRIx64 "\"", spoor_te_field_name(f), pkt->v[f]);
		else
			fprintf(out, ",\"%s\":%" PRIu64, spoor_te_field_name(f), pkt->v[f]);
	}
	if (spoor_te_has(pkt, SPOOR_TE_F_ADDRESS)) {
		if (address_is_full(pkt, mode))
			fprintf(out, ",\"target\":\"0x%" PRIx64 "\"",
				spoor_te_full_address(p, pkt->v[SPOOR_TE_F_ADDRESS]));
		else
			fprintf(out, ",\"delta\":%" PRId64,
				spoor_te_diff_address(p, pkt->v[SPOOR_TE_F_ADDRESS]));
	}
	if (spoor_te_has(pkt, SPOOR_TE_F_NOTIFY) || spoor_te_has(pkt, SPOOR_TE_F_IRREPORT))
		fprintf(out, ",\"notify_set\":%s,\"updiscon_set\":%s,\"irreport_set\":%s",
			pkt->status & SPOOR_TE_NOTIFY ? "true" : "false",
			pkt->status & SPOOR_TE_UPDISCON ? "true" : "false",
			pkt->status & SPOOR_TE_IRREPORT ? "true" : "false");
	if (spoor_te_has(pkt, SPOOR_TE_F_QUAL_STATUS))
		fprintf(out, ",\"qual\":\"%s\"", qual_status_name(pkt->v[SPOOR_TE_F_QUAL_STATUS]));
	fputs("}\n", out);
}
