/* SPDX-License-Identifier: MIT */
/*
 * A TCP server that hands the same byte stream to every client connected
 * (spoor stream --serve): each client gets the bytes from the moment it
 * joined; one that falls too far behind is dropped with a message and never
 * slows the capture or the others.
 */
#ifndef SPOOR_CLI_SERVE_H
#define SPOOR_CLI_SERVE_H

#include <stddef.h>
#include <stdint.h>

#define CLI_SERVE_MAX_CLIENTS 64
#define CLI_SERVE_BACKLOG (64u << 20)	/* bytes queued for a client before it is dropped */

struct cli_serve;

/*
 * Listens on @addr ("PORT" or "HOST:PORT"; the host defaults to 127.0.0.1).
 * Prints "spoor CMD: serving on HOST:PORT" on stderr.  Returns NULL after a
 * message.
 */
struct cli_serve *cli_serve_new(const char *cmd, const char *addr);
void cli_serve_free(struct cli_serve *s);

/* Queues @len bytes for every client and sends what the sockets take now. */
void cli_serve_write(struct cli_serve *s, const void *buf, size_t len);

/* Accepts newcomers and sends queued bytes, waiting up to @timeout_ms for either. */
void cli_serve_poll(struct cli_serve *s, int timeout_ms);

/* At the end: gives clients up to @timeout_ms to take what is queued. */
void cli_serve_drain(struct cli_serve *s, int timeout_ms);

#endif
