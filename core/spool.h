/*
** spool.h — make a one-shot input (a pipe, `<(zcat log.gz)`, standard
** input) readable as a file. A log is sniffed before it is read, and the
** readers open it by name; a pipe can be read only once, so its bytes are
** copied first into a temporary file that the caller reads and removes.
*/
#ifndef SDB_SPOOL_H
#define SDB_SPOOL_H

#include "err.h"

#include <stdbool.h>

/* Must path be spooled before it is read: "-" (standard input), a FIFO,
** a character device or a socket? Regular files and directories need not. */
bool sdb_spool_needed(const char *path);

/* Copy path ("-": standard input) into a new file in $TMPDIR (or /tmp) and
** return its name in *tmp (the caller unlinks and frees it). Ctrl-C (see
** cancel.h) stops the copy. On failure nothing is left behind and err
** names path, or the temporary folder when writing failed (disk full). */
int sdb_spool(const char *path, char **tmp, sdb_err *err);

#endif
