// SPDX-License-Identifier: MIT
/*
 * Trace sources (spoor/source.h): the list of drivers, the spec a user
 * types, the vendor requests of the spoor probe over a driver's control
 * channel, the record stream made sense of, and reconnection.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "source_driver.h"
#include "spoor/error.h"

/* Every driver: adding a probe is one file and one line here. */
static const struct spoor_source_driver *const drivers[] = {
	&spoor_source_usb,
	&spoor_source_ftdi,
	&spoor_source_tcp,
	&spoor_source_file,
};

#define CONTROL_TIMEOUT_MS 1000
#define NDRIVERS (sizeof(drivers) / sizeof(drivers[0]))

int spoor_source_list_add(struct spoor_source_list *list, const struct spoor_source_desc *d)
{
	if (list->n == list->cap) {
		size_t cap = list->cap ? 2 * list->cap : 8;
		struct spoor_source_desc *v = realloc(list->v, cap * sizeof(*v));

		if (!v)
			return SPOOR_E_NOMEM;
		list->v = v;
		list->cap = cap;
	}
	list->v[list->n++] = *d;
	return 0;
}

int spoor_source_scan(struct spoor_source_desc **out, size_t *n, struct spoor_diag *diag)
{
	struct spoor_source_list list = { 0 };
	struct spoor_diag d;
	int ret;

	if (diag)
		diag->msg[0] = 0;
	for (size_t i = 0; i < NDRIVERS; i++) {
		if (!drivers[i]->scan)
			continue;
		d.msg[0] = 0;
		ret = drivers[i]->scan(&list, &d);
		if (ret == SPOOR_E_NOMEM)
			goto fail;
		if (ret < 0 && diag && !diag->msg[0])
			snprintf(diag->msg, sizeof(diag->msg), "%s: %s", drivers[i]->name,
				 d.msg[0] ? d.msg : spoor_errstr(ret));
	}
	*out = list.v;
	*n = list.n;
	return 0;
fail:
	free(list.v);
	return SPOOR_E_NOMEM;
}

/* The driver @spec names and the argument after its "name:"; a bare path is a file. */
static const struct spoor_source_driver *find_driver(const char *spec, const char **arg)
{
	for (size_t i = 0; i < NDRIVERS; i++) {
		size_t n = strlen(drivers[i]->name);

		if (strncmp(spec, drivers[i]->name, n))
			continue;
		if (spec[n] == ':') {
			*arg = spec + n + 1;
			return drivers[i];
		}
		if (!spec[n] && drivers[i]->live) {
			*arg = "";
			return drivers[i];
		}
	}
	*arg = spec;
	return &spoor_source_file;
}

bool spoor_source_spec_live(const char *spec)
{
	const char *arg;

	return spec && find_driver(spec, &arg)->live;
}

int spoor_source_open(const char *spec, struct spoor_source **out, struct spoor_diag *diag)
{
	struct spoor_source *src;
	const char *arg;
	int ret;

	if (diag)
		diag->msg[0] = 0;
	if (!spec || !*spec || !out) {
		if (diag)
			snprintf(diag->msg, sizeof(diag->msg),
				 "no trace source given (usb[:SERIAL], ftdi[:SERIAL], "
				 "tcp:HOST:PORT or file:PATH)");
		return SPOOR_E_INVAL;
	}
	src = calloc(1, sizeof(*src));
	if (!src)
		return SPOOR_E_NOMEM;
	src->drv = find_driver(spec, &arg);
	snprintf(src->name, sizeof(src->name), "%s:%s", src->drv->name, arg);
	if (src->drv->framing == SPOOR_FRAMING_RECORDS) {
		src->records = spoor_probe_stream_new();
		if (!src->records) {
			ret = SPOOR_E_NOMEM;
			goto fail;
		}
	}
	ret = src->drv->open(src, arg, diag);
	if (ret < 0) {
		if (diag && !diag->msg[0])
			snprintf(diag->msg, sizeof(diag->msg), "%s: %s", src->name,
				 spoor_errstr(ret));
		goto fail;
	}
	*out = src;
	return 0;
fail:
	spoor_probe_stream_free(src->records);
	free(src);
	return ret;
}

void spoor_source_close(struct spoor_source *src)
{
	if (!src)
		return;
	if (src->capturing && src->drv->live)
		spoor_source_stop(src);
	src->drv->close(src);
	spoor_probe_stream_free(src->records);
	free(src);
}

const char *spoor_source_name(const struct spoor_source *src)
{
	return src->name;
}

bool spoor_source_live(const struct spoor_source *src)
{
	return src->drv->live;
}

int spoor_source_control(struct spoor_source *src, uint8_t request_type, uint8_t request,
			 uint16_t value, uint16_t index, uint8_t *data, uint16_t len,
			 int timeout_ms)
{
	if (!src)
		return SPOOR_E_INVAL;
	if (!src->drv->control)
		return SPOOR_E_NOT_FOUND;
	return src->drv->control(src, request_type, request, value, index, data, len,
				 timeout_ms);
}

/* An OUT vendor request to the trace interface, with @len bytes of @data. */
static int vendor_out(struct spoor_source *src, uint8_t request, uint8_t *data, uint16_t len)
{
	int ret = spoor_source_control(src, SPOOR_PROBE_REQTYPE_OUT, request, 0,
				       SPOOR_PROBE_IF_TRACE, data, len, CONTROL_TIMEOUT_MS);

	return ret < 0 ? ret : 0;
}

/* An IN vendor request for exactly @len bytes; a shorter reply is SPOOR_E_PROTOCOL. */
static int vendor_in(struct spoor_source *src, uint8_t request, uint8_t *data, uint16_t len)
{
	int ret = spoor_source_control(src, SPOOR_PROBE_REQTYPE_IN, request, 0,
				       SPOOR_PROBE_IF_TRACE, data, len, CONTROL_TIMEOUT_MS);

	return ret < 0 ? ret : ret < len ? SPOOR_E_PROTOCOL : 0;
}

int spoor_source_info(struct spoor_source *src, struct spoor_probe_info *info)
{
	uint8_t buf[SPOOR_PROBE_INFO_SIZE];
	int ret;

	if (!src || !info)
		return SPOOR_E_INVAL;
	if (src->drv->info)
		return src->drv->info(src, info);
	ret = vendor_in(src, SPOOR_PROBE_GET_INFO, buf, sizeof(buf));
	if (ret < 0)
		return ret;
	return spoor_probe_info_decode(buf, sizeof(buf), info) < 0 ? SPOOR_E_PROTOCOL : 0;
}

int spoor_source_header(struct spoor_source *src, struct spoor_capture_header *h)
{
	if (!src || !h)
		return SPOOR_E_INVAL;
	return src->drv->header ? src->drv->header(src, h) : SPOOR_E_NOT_FOUND;
}

void spoor_source_config_for(struct spoor_probe_config *cfg, const struct spoor_encap_config *encap,
			     const struct spoor_probe_info *info)
{
	if (encap) {
		cfg->encap = (uint8_t)encap->kind;
		cfg->src_bits = (uint8_t)encap->src_bits;
		cfg->ts_bytes = (uint8_t)encap->ts_bytes;
		cfg->type_bits = (uint8_t)encap->type_bits;
	}
	if (cfg->port_width)
		return;
	cfg->port_width = 4;
	if (!info || (info->port_widths & (1u << (4 - 1))))
		return;
	for (unsigned w = 16; w >= 1; w /= 2)
		if (info->port_widths & (1u << (w - 1))) {
			cfg->port_width = (uint8_t)w;
			return;
		}
}

int spoor_source_configure(struct spoor_source *src, const struct spoor_probe_config *cfg)
{
	uint8_t buf[SPOOR_PROBE_CONFIG_SIZE];
	int ret;

	if (!src || !cfg)
		return SPOOR_E_INVAL;
	if (src->drv->configure) {
		ret = src->drv->configure(src, cfg);
	} else {
		ret = spoor_probe_config_encode(cfg, buf);
		if (ret >= 0)
			ret = vendor_out(src, SPOOR_PROBE_SET_CONFIG, buf, sizeof(buf));
	}
	if (ret < 0)
		return ret;
	src->cfg = *cfg;
	src->configured = true;
	return 0;
}

/* A new capture: the record stream and the raw offsets start again. */
static int restart_stream(struct spoor_source *src)
{
	if (src->records) {
		spoor_probe_stream_free(src->records);
		src->records = spoor_probe_stream_new();
		if (!src->records)
			return SPOOR_E_NOMEM;
	}
	src->raw_offset = 0;
	src->ended = false;
	src->stop_due = false;
	return 0;
}

int spoor_source_start(struct spoor_source *src)
{
	int ret;

	if (!src)
		return SPOOR_E_INVAL;
	ret = restart_stream(src);
	if (!ret && src->drv->control)
		ret = vendor_out(src, SPOOR_PROBE_START, NULL, 0);
	if (!ret && src->drv->start)
		ret = src->drv->start(src);
	if (ret < 0)
		return ret;
	src->capturing = true;
	return 0;
}

int spoor_source_stop(struct spoor_source *src)
{
	int ret = 0;

	if (!src)
		return SPOOR_E_INVAL;
	if (src->drv->stop)
		ret = src->drv->stop(src);
	if (!ret && src->drv->control)
		ret = vendor_out(src, SPOOR_PROBE_STOP, NULL, 0);
	/* Without a protocol (a raw FIFO) the end is where the host stops. */
	if (!ret && src->drv->framing == SPOOR_FRAMING_RAW)
		src->stop_due = true;
	if (!ret)
		src->capturing = false;
	return ret;
}

int spoor_source_status(struct spoor_source *src, struct spoor_probe_status *st)
{
	uint8_t buf[SPOOR_PROBE_STATUS_SIZE];
	int ret;

	if (!src || !st)
		return SPOOR_E_INVAL;
	ret = vendor_in(src, SPOOR_PROBE_GET_STATUS, buf, sizeof(buf));
	if (ret < 0)
		return ret;
	return spoor_probe_status_decode(buf, sizeof(buf), st) < 0 ? SPOOR_E_PROTOCOL : 0;
}

void spoor_source_item(struct spoor_source *src, const struct spoor_probe_item *it)
{
	const struct spoor_source_ops *ops = src->ops;

	switch (it->kind) {
	case SPOOR_PROBE_ITEM_DATA:
		if (ops && ops->data && it->len)
			ops->data(src->ctx, it->offset, it->data, it->len);
		break;
	case SPOOR_PROBE_ITEM_OVERFLOW:
		if (ops && ops->loss)
			ops->loss(src->ctx, it->offset, it->lost);
		break;
	case SPOOR_PROBE_ITEM_END:
		src->ended = true;
		src->capturing = false;
		if (ops && ops->end)
			ops->end(src->ctx, it->offset);
		break;
	case SPOOR_PROBE_ITEM_ERROR:
		if (ops && ops->error)
			ops->error(src->ctx, it->stream_offset, it->reason,
				   spoor_errstr(it->reason));
		break;
	}
}

void spoor_source_bytes(struct spoor_source *src, const uint8_t *buf, size_t len)
{
	struct spoor_probe_item it;

	if (src->drv->framing == SPOOR_FRAMING_RAW) {
		it = (struct spoor_probe_item){
			.kind = SPOOR_PROBE_ITEM_DATA, .offset = src->raw_offset,
			.data = buf, .len = len,
		};
		src->raw_offset += len;
		spoor_source_item(src, &it);
		return;
	}
	if (spoor_probe_stream_feed(src->records, buf, len) < 0)
		return;
	while (spoor_probe_stream_next(src->records, &it, sizeof(it)) > 0)
		spoor_source_item(src, &it);
}

int spoor_source_poll(struct spoor_source *src, int timeout_ms,
		      const struct spoor_source_ops *ops, void *ctx)
{
	int ret;

	if (!src)
		return SPOOR_E_INVAL;
	src->ops = ops;
	src->ctx = ctx;
	if (src->unknown_loss) {
		src->unknown_loss = false;
		if (ops && ops->loss)
			ops->loss(ctx, 0, SPOOR_SOURCE_LOST_UNKNOWN);
	}
	if (src->ended) {
		ret = SPOOR_SOURCE_DONE;
		goto out;
	}
	ret = src->drv->read(src, src->stop_due ? 0 : timeout_ms);
	if (ret >= 0 && src->stop_due && ret != SPOOR_SOURCE_MORE) {
		/* A raw FIFO drained after the host stopped it: that is its end. */
		struct spoor_probe_item it = {
			.kind = SPOOR_PROBE_ITEM_END, .offset = src->raw_offset,
		};

		spoor_source_item(src, &it);
	}
	if (ret >= 0 && src->ended)
		ret = SPOOR_SOURCE_DONE;
out:
	src->ops = NULL;
	src->ctx = NULL;
	return ret;
}

/* Reopens the device with the same serial, trying for up to @timeout_ms. */
static int reopen_wait(struct spoor_source *src, int timeout_ms)
{
	struct timespec t0, t;
	struct spoor_diag d;
	int ret;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		ret = src->drv->reopen(src, &d);
		if (ret != SPOOR_E_NO_DEVICE)
			return ret;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 >= timeout_ms)
			return SPOOR_E_TIMEOUT;
		nanosleep(&(struct timespec){ .tv_nsec = 100 * 1000 * 1000 }, NULL);
	}
}

int spoor_source_reset(struct spoor_source *src, int timeout_ms)
{
	int ret;

	if (!src)
		return SPOOR_E_INVAL;
	if (!src->drv->reset || !src->drv->reopen)
		return SPOOR_E_NOT_FOUND;
	ret = src->drv->reset(src);
	if (ret < 0 && ret != SPOOR_E_NO_DEVICE)
		return ret;
	src->capturing = false;
	return reopen_wait(src, timeout_ms);
}

int spoor_source_dfu_interface(struct spoor_source *src)
{
	if (!src)
		return SPOOR_E_INVAL;
	if (!src->drv->control)
		return SPOOR_E_NOT_FOUND;
	return src->drv->dfu_interface ? src->drv->dfu_interface(src) : SPOOR_PROBE_IF_DFU;
}

int spoor_source_reconnect(struct spoor_source *src, int timeout_ms)
{
	bool was_capturing;
	int ret;

	if (!src)
		return SPOOR_E_INVAL;
	if (!src->drv->reopen)
		return SPOOR_E_NO_DEVICE;
	was_capturing = src->capturing;
	ret = reopen_wait(src, timeout_ms);
	if (ret < 0)
		return ret;
	if (src->configured) {
		ret = spoor_source_configure(src, &src->cfg);
		if (ret < 0)
			return ret;
	}
	if (was_capturing) {
		ret = spoor_source_start(src);
		if (ret < 0)
			return ret;
		src->unknown_loss = true;
	}
	return 0;
}
