// SPDX-License-Identifier: MIT
/* The probe firmware's portable core: capture buffer, states, requests, records (fw.h). */
#include <string.h>

#include "fw.h"
#include "spoor/error.h"

int spoor_fw_init(struct spoor_fw *fw, uint8_t *buf, size_t size,
		  const struct spoor_probe_info *info)
{
	if (!fw || !buf || !info || size < 64 || (size & (size - 1)))
		return SPOOR_E_INVAL;
	memset(fw, 0, sizeof(*fw));
	fw->buf = buf;
	fw->size = size;
	fw->info = *info;
	fw->info.buffer_size = (uint32_t)size;
	fw->cfg.port_width = 4;
	return 0;
}

/* Notes @lost bytes dropped at the buffer's head, trace offset @offset. */
static void mark_loss(struct spoor_fw *fw, uint64_t offset, uint64_t lost)
{
	struct spoor_fw_mark *last = fw->nmarks ? &fw->marks[fw->nmarks - 1] : NULL;

	fw->lost += lost;
	/* Nothing kept since the last loss: the same gap, longer. */
	if (last && last->at == fw->head && last->offset + last->lost == offset) {
		last->lost += lost;
		return;
	}
	fw->marks[fw->nmarks++] = (struct spoor_fw_mark){
		.at = fw->head, .offset = offset, .lost = lost,
	};
	fw->overflows++;
}

size_t spoor_fw_trace_in(struct spoor_fw *fw, const uint8_t *b, size_t n)
{
	size_t room, k, at, first;

	if (fw->state != SPOOR_PROBE_CAPTURING || !n)
		return 0;
	room = fw->size - (size_t)(fw->head - fw->tail);
	/*
	 * With every mark in use, nothing more is kept until the host drains:
	 * the losses then stay one gap, exactly counted.
	 */
	k = fw->nmarks == SPOOR_FW_MARKS ? 0 : n < room ? n : room;
	at = (size_t)(fw->head & (fw->size - 1));
	first = k < fw->size - at ? k : fw->size - at;
	memcpy(fw->buf + at, b, first);
	memcpy(fw->buf, b + first, k - first);
	fw->head += k;
	if (k < n)
		mark_loss(fw, fw->captured + k, n - k);
	fw->captured += n;
	if (fw->head - fw->tail > fw->high_water)
		fw->high_water = (uint32_t)(fw->head - fw->tail);
	return k;
}

void spoor_fw_trace_lost(struct spoor_fw *fw, uint64_t n)
{
	if (fw->state != SPOOR_PROBE_CAPTURING || !n)
		return;
	mark_loss(fw, fw->captured, n);
	fw->captured += n;
}

void spoor_fw_status(const struct spoor_fw *fw, struct spoor_probe_status *st)
{
	memset(st, 0, sizeof(*st));
	st->state = fw->state;
	st->bytes_captured = fw->captured;
	st->bytes_lost = fw->lost;
	st->overflows = fw->overflows;
	st->high_water = fw->high_water;
}

/* Is configuration @c one this probe can do? */
static bool config_ok(const struct spoor_fw *fw, const struct spoor_probe_config *c)
{
	if (!(fw->info.port_widths & (1u << (c->port_width - 1))))
		return false;
	if ((c->flags & SPOOR_PROBE_CFG_DDR) && !(fw->info.capabilities & SPOOR_PROBE_CAP_DDR))
		return false;
	return !(c->flags & SPOOR_PROBE_CFG_FALLING) ||
	       (fw->info.capabilities & SPOOR_PROBE_CAP_FALLING_EDGE);
}

int spoor_fw_control(struct spoor_fw *fw, uint8_t request, uint8_t *data, size_t len)
{
	struct spoor_probe_config c;
	struct spoor_probe_status st;

	switch (request) {
	case SPOOR_PROBE_GET_INFO:
		if (len < SPOOR_PROBE_INFO_SIZE)
			return -1;
		return spoor_probe_info_encode(&fw->info, data) < 0 ? -1 : SPOOR_PROBE_INFO_SIZE;
	case SPOOR_PROBE_SET_CONFIG:
		if (fw->state != SPOOR_PROBE_IDLE || len != SPOOR_PROBE_CONFIG_SIZE ||
		    spoor_probe_config_decode(data, len, &c) || !config_ok(fw, &c))
			return -1;
		fw->cfg = c;
		return 0;
	case SPOOR_PROBE_START:
		if (fw->state != SPOOR_PROBE_IDLE || len)
			return -1;
		/* A new capture: its offsets and counters from 0. */
		fw->head = fw->tail = 0;
		fw->captured = fw->lost = 0;
		fw->overflows = fw->high_water = 0;
		fw->nmarks = 0;
		fw->state = SPOOR_PROBE_CAPTURING;
		return 0;
	case SPOOR_PROBE_STOP:
		if (len)
			return -1;
		if (fw->state == SPOOR_PROBE_CAPTURING) {
			fw->state = SPOOR_PROBE_STOPPING;
			fw->end_due = true;
		}
		return 0;
	case SPOOR_PROBE_GET_STATUS:
		if (len < SPOOR_PROBE_STATUS_SIZE)
			return -1;
		spoor_fw_status(fw, &st);
		return spoor_probe_status_encode(&st, data) < 0 ? -1 : SPOOR_PROBE_STATUS_SIZE;
	default:
		return -1;
	}
}

/* Copies @n buffered bytes from the tail to @out. */
static void take(struct spoor_fw *fw, uint8_t *out, size_t n)
{
	size_t at = (size_t)(fw->tail & (fw->size - 1));
	size_t first = n < fw->size - at ? n : fw->size - at;

	memcpy(out, fw->buf + at, first);
	memcpy(out + first, fw->buf, n - first);
	fw->tail += n;
}

size_t spoor_fw_bulk_in(struct spoor_fw *fw, uint8_t *out, size_t max)
{
	size_t used = 0;

	for (;;) {
		size_t room = max - used, limit, n;

		if (fw->nmarks && fw->marks[0].at == fw->tail) {
			const struct spoor_fw_mark *m = &fw->marks[0];

			if (room < SPOOR_PROBE_REC_HEADER + SPOOR_PROBE_OVERFLOW_SIZE)
				break;
			/* The probe's counters are 32-bit per record: a longer gap is several. */
			n = m->lost > UINT32_MAX ? UINT32_MAX : (size_t)m->lost;
			used += (size_t)spoor_probe_overflow_record(fw->seq++, m->offset, (uint32_t)n,
								    out + used);
			fw->marks[0].offset += n;
			fw->marks[0].lost -= n;
			if (!fw->marks[0].lost) {
				memmove(fw->marks, fw->marks + 1, --fw->nmarks * sizeof(*fw->marks));
			}
			continue;
		}
		limit = (size_t)((fw->nmarks ? fw->marks[0].at : fw->head) - fw->tail);
		if (limit) {
			if (room <= SPOOR_PROBE_REC_HEADER)
				break;
			n = limit < room - SPOOR_PROBE_REC_HEADER ? limit : room - SPOOR_PROBE_REC_HEADER;
			if (n > SPOOR_PROBE_REC_MAX)
				n = SPOOR_PROBE_REC_MAX;
			used += (size_t)spoor_probe_record_header(SPOOR_PROBE_REC_DATA, fw->seq++, n,
								   out + used);
			take(fw, out + used, n);
			used += n;
			continue;
		}
		if (fw->end_due && !fw->nmarks && fw->head == fw->tail &&
		    room >= SPOOR_PROBE_REC_HEADER + SPOOR_PROBE_END_SIZE) {
			used += (size_t)spoor_probe_end_record(fw->seq++, fw->captured, out + used);
			fw->end_due = false;
			fw->state = SPOOR_PROBE_IDLE;
		}
		break;
	}
	return used;
}
