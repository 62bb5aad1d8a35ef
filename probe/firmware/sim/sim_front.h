/* SPDX-License-Identifier: MIT */
/*
 * The sim port's fronts (how a host reaches the device model of sim.h) and
 * what they need from the model beyond sim.h.  spoor-probe-sim (main.c)
 * runs one of them: the TCP service (sim_tcp.c), the emulated USB device
 * under umockdev (sim_usb.c) or the emulated FT2232H FIFO (sim_ftdi.c).
 */
#ifndef SPOOR_SIM_FRONT_H
#define SPOOR_SIM_FRONT_H

#include <signal.h>
#include <stdbool.h>

#include "sim.h"

/*
 * A file descriptor that polls readable while bulk IN bytes may be there
 * (for poll()-based fronts).  sim_probe_bulk_in() clears it when it finds
 * nothing to send; the model sets it again when bytes, a loss or the END
 * record come.  Owned by @p.
 */
int sim_probe_event_fd(struct sim_probe *p);

/*
 * Trace input failures seen since sim_probe_run() (an unreadable capture
 * record, a trace port that could not be reached), each reported on
 * stderr when it happened.
 */
unsigned sim_probe_input_errors(struct sim_probe *p);

struct sim_tcp;

/*
 * Listens on @host:@port (port 0: one the system picks) for the TCP binding
 * (probe/PROTOCOL.md).  Returns 0 with the service in *@out, or
 * SPOOR_E_IO (errno set) / SPOOR_E_NOMEM / SPOOR_E_INVAL with @why.
 */
int sim_tcp_open(struct sim_probe *p, const struct sim_options *o, const char *host,
		 unsigned port, struct sim_tcp **out, char *why, size_t why_size);

/* The port it listens on. */
unsigned sim_tcp_port(const struct sim_tcp *t);

/*
 * Serves one host at a time until *@stop is set (by a signal handler).
 * Returns 0, or SPOOR_E_IO / SPOOR_E_NOMEM after a failure it reported.
 */
int sim_tcp_serve(struct sim_tcp *t, volatile sig_atomic_t *stop);

void sim_tcp_close(struct sim_tcp *t);

/*
 * The USB fronts: run COMMAND @argv (NULL-terminated) against the device
 * model as an emulated USB device (sim_usb.c) or an FT2232H FIFO
 * (sim_ftdi.c).  Return the exit status for spoor-probe-sim.
 */
int sim_usb_run(struct sim_probe *p, const struct sim_options *o, char **argv);
int sim_ftdi_run(struct sim_probe *p, const struct sim_options *o, char **argv);

#endif /* SPOOR_SIM_FRONT_H */
