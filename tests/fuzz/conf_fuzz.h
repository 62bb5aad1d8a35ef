/* SPDX-License-Identifier: MIT */
/*
 * What the file-reading fuzz targets share: the input as a file (a memfd,
 * so that the library reads it through its own path as from disk) and the
 * check that a message quotes no raw byte of the input.
 */
#ifndef SPOOR_CONF_FUZZ_H
#define SPOOR_CONF_FUZZ_H

#define _GNU_SOURCE	/* memfd_create */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "spoor/error.h"

#define REQUIRE(cond) do { if (!(cond)) __builtin_trap(); } while (0)

/* Writes @data to a new memfd; returns its fd and its path in @path. */
static inline int fuzz_file(const uint8_t *data, size_t size, char *path, size_t path_size)
{
	int fd = memfd_create("spoor-fuzz", MFD_CLOEXEC);

	REQUIRE(fd >= 0);
	for (size_t done = 0; done < size;) {
		ssize_t n = write(fd, data + done, size - done);

		REQUIRE(n > 0);
		done += (size_t)n;
	}
	snprintf(path, path_size, "/proc/self/fd/%d", fd);
	return fd;
}

/* A message is one line of printable ASCII: input bytes come escaped. */
static inline void fuzz_check_message(const char *msg)
{
	for (const char *p = msg; *p; p++)
		REQUIRE(*p >= 0x20 && *p < 0x7f);
}

/* A refused input: a spoor error, and a printable message naming the file at @path. */
static inline void fuzz_check_refusal(int ret, const char *msg, const char *path)
{
	REQUIRE(ret < 0 && ret >= SPOOR_E_LAST);
	REQUIRE(!strncmp(msg, path, strlen(path)));
	fuzz_check_message(msg);
}

#endif
