/*
** srcfile.h — lines of the user's source files, for messages and listings
** ("Caused by: if n > 2 then  # model.lua:7 in model", the REPL's `list`).
** Files are read once and cached; lines come back without indentation or
** newline, interned. A missing file or line gives NULL. Files over
** SDB_SRCFILE_MAX bytes, and files with a read error, count as unreadable
** (sdb_srcfile_error says why), so `list /dev/zero` cannot eat memory.
*/
#ifndef SDB_SRCFILE_H
#define SDB_SRCFILE_H

#include <stdbool.h>

const char *sdb_srcfile_line(const char *file, int line);      /* trimmed */
const char *sdb_srcfile_line_raw(const char *file, int line);  /* as written */
#define SDB_SRCFILE_MAX (16 << 20)
int sdb_srcfile_count(const char *file);                       /* lines, -1 if unreadable */
const char *sdb_srcfile_error(const char *file);               /* why unreadable, or NULL */
void sdb_srcfile_reset(void);
/* Serve file's lines from text instead of the disk (a replayed trace holds
** the sources its run saw): replaces what the cache held. 0, or -1 on OOM. */
int sdb_srcfile_set_text(const char *file, const char *text);
/* Re-read the cached files that changed on disk (size, mtime, inode), or
** all of them: the front end calls this between commands and before a
** run, so listings follow the user's edits. Lookups themselves never stat
** (guards and graph printing look lines up in hot loops). Text set by
** sdb_srcfile_set_text stays until a refresh of all (a live run). */
void sdb_srcfile_refresh(bool all);
/* The first cached file (not set from text) that changed on disk since it
** was read, or NULL: a paused program keeps its text, and the front end
** says the file moved on. Interned. */
const char *sdb_srcfile_changed_on_disk(void);

#endif
