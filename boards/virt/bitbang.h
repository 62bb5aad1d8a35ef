/* SPDX-License-Identifier: MIT */
/*
 * A remote_bitbang server (the TCP protocol of OpenOCD's remote_bitbang
 * adapter driver) for the virtual board's TAP.  It listens on 127.0.0.1
 * only and serves one client at a time.  Every connection that arrives is
 * accepted at once; while the client sends bytes it keeps the port (a
 * newcomer is closed at once), but a client silent for SPOOR_BITBANG_IDLE_MS
 * is closed when another connects, and the newcomer takes over — so an idle
 * connection cannot lock OpenOCD out (OpenOCD polls the target every 100 ms
 * while it is attached, so it is never idle that long).  Every byte is one
 * operation:
 *
 *   '0'-'7'  set TCK, TMS, TDI to bits 2, 1, 0 of (byte - '0')
 *   'R'      read TDO: answered with '0' or '1'
 *   'r'-'u'  set TRST, SRST to bits 1, 0 of (byte - 'r')
 *   'B' 'b'  blink on/off (ignored)
 *   'Q'      quit: the server closes the connection
 *
 * Other bytes are ignored.  The server never blocks: spoor_bitbang_poll()
 * handles what has arrived and returns.
 */
#ifndef SPOOR_BITBANG_H
#define SPOOR_BITBANG_H

#include <stddef.h>
#include <stdint.h>

#include "jtag.h"

#ifdef __cplusplus
extern "C" {
#endif

struct spoor_bitbang;

/* How long a client must be silent before a newcomer may take the port over. */
#define SPOOR_BITBANG_IDLE_MS 1000

/* What spoor_bitbang_poll() saw (non-negative return values). */
enum spoor_bitbang_event {
	SPOOR_BITBANG_NONE = 0,		/* nothing happened */
	SPOOR_BITBANG_ACTIVE,		/* a client connected, or bytes were handled */
	SPOOR_BITBANG_QUIT,		/* the client sent 'Q' or disconnected */
	SPOOR_BITBANG_TAKEOVER,		/* a newcomer replaced an idle client (closed) */
	SPOOR_BITBANG_REFUSED,		/* a newcomer was closed: the client is busy */
};

/*
 * Starts listening on 127.0.0.1:@port (0: a free port the system picks)
 * for clients driving @tap (which must outlive the server), and stores the
 * server in *@out.  Returns 0, SPOOR_E_INVAL, SPOOR_E_NOMEM or SPOOR_E_IO
 * (errno set).
 */
int spoor_bitbang_open(struct spoor_jtag *tap, unsigned port, struct spoor_bitbang **out);

/* Closes the connection and the listening socket. */
void spoor_bitbang_close(struct spoor_bitbang *bb);

/* Returns the TCP port listened on, 0 for NULL. */
unsigned spoor_bitbang_port(const struct spoor_bitbang *bb);

/*
 * Waits up to @timeout_ms (0: not at all, negative: without limit) for
 * connections or bytes, then accepts the connections (see above) and
 * handles every byte that arrived and sends the answers.  Returns an enum spoor_bitbang_event, or
 * SPOOR_E_IO (errno set) if the listening socket failed; a failing
 * connection is closed and reported as SPOOR_BITBANG_QUIT.  A signal ends
 * the wait early (SPOOR_BITBANG_NONE).
 */
int spoor_bitbang_poll(struct spoor_bitbang *bb, int timeout_ms);

/*
 * Carries out the @len protocol bytes at @in on @tap, writing the answers
 * to 'R' to @out (room for @len bytes).  Stops after a 'Q', setting *@quit
 * (if not NULL) to 1, else to 0.  Returns the number of answer bytes, or
 * SPOOR_E_INVAL.
 */
int spoor_bitbang_process(struct spoor_jtag *tap, const uint8_t *in, size_t len,
			  uint8_t *out, int *quit);

#ifdef __cplusplus
}
#endif

#endif /* SPOOR_BITBANG_H */
