/*
** srcfile.h — lines of the user's source files, for messages and listings
** ("Caused by: if n > 2 then  # model.lua:7 in model", the REPL's `list`).
** Files are read once and cached; lines come back without indentation or
** newline, interned. A missing file or line gives NULL.
*/
#ifndef SDB_SRCFILE_H
#define SDB_SRCFILE_H

const char *sdb_srcfile_line(const char *file, int line);      /* trimmed */
const char *sdb_srcfile_line_raw(const char *file, int line);  /* as written */
int sdb_srcfile_count(const char *file);                       /* lines, -1 if unreadable */
void sdb_srcfile_reset(void);

#endif
