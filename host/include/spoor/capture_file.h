/* SPDX-License-Identifier: MIT */
/*
 * Capture files on disk (format: spoor/capture.h, host/CAPTURE.md).  The
 * writer appends each record with one write(2) as it comes, so a crash or an
 * unplug loses at most the record in flight; the reader reads a file record
 * by record, and a file cut short still reads to its last whole record.
 */
#ifndef SPOOR_CAPTURE_FILE_H
#define SPOOR_CAPTURE_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "spoor/capture.h"
#include "spoor/config_file.h"

#ifdef __cplusplus
extern "C" {
#endif

struct spoor_capture_writer;

/*
 * Creates (or truncates) @path and writes header @h (start_ns 0: now).
 * Returns 0 with the writer in *@out, or SPOOR_E_INVAL, SPOOR_E_NOMEM,
 * SPOOR_E_IO with @diag naming the file and the reason.
 */
int spoor_capture_writer_open(const char *path, const struct spoor_capture_header *h,
			      struct spoor_capture_writer **out, struct spoor_diag *diag);

/*
 * Appends @len trace bytes (in records of at most 1 MiB), time-stamped now.
 * Returns 0 or SPOOR_E_IO (errno set; every later write fails too).
 */
int spoor_capture_write_data(struct spoor_capture_writer *w, const uint8_t *buf, size_t len);

/* Records that @lost trace bytes were lost here.  Returns 0 or SPOOR_E_IO. */
int spoor_capture_write_loss(struct spoor_capture_writer *w, uint64_t lost);

/* Trace bytes recorded so far, lost ones included. */
uint64_t spoor_capture_writer_offset(const struct spoor_capture_writer *w);

/*
 * Appends the END record and closes the file (freeing @w).  Returns 0, or
 * SPOOR_E_IO if that or any earlier write failed.
 */
int spoor_capture_writer_close(struct spoor_capture_writer *w);

struct spoor_capture_reader;

/*
 * Opens the capture file @path (a regular file) and reads its header.
 * Returns 0 with the reader in *@out, or SPOOR_E_IO, SPOOR_E_NOT_REGULAR,
 * SPOOR_E_NOMEM, SPOOR_E_BAD_FORMAT (not a capture file: no magic, or an
 * unknown version), SPOOR_E_TRUNCATED, SPOOR_E_CHECKSUM, SPOOR_E_BAD_FIELD
 * with @diag naming the file and the reason.
 */
int spoor_capture_reader_open(const char *path, struct spoor_capture_reader **out,
			      struct spoor_diag *diag);

/* The file's header (valid while @r lives). */
const struct spoor_capture_header *spoor_capture_reader_header(const struct spoor_capture_reader *r);

/*
 * Reads the next record into @rec (its payload valid until the next call).
 * Returns 1, 0 at the END record or the file's end after whole records,
 * or SPOOR_E_TRUNCATED (the file ends inside a record: all before it was
 * read), SPOOR_E_CHECKSUM, SPOOR_E_BAD_FIELD, SPOOR_E_IO; the file offset
 * of the bad record is spoor_capture_reader_pos().
 */
int spoor_capture_reader_next(struct spoor_capture_reader *r, struct spoor_capture_record *rec);

/* File offset of the next record to read. */
uint64_t spoor_capture_reader_pos(const struct spoor_capture_reader *r);

void spoor_capture_reader_close(struct spoor_capture_reader *r);

#ifdef __cplusplus
}
#endif

#endif
