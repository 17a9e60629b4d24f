/*
** lineio.h — where lines come from at the prompt: GNU Readline when stdin
** is a terminal (prompts, history file, Tab completion, Ctrl-C clearing
** the line), plain getline otherwise (no prompt, no echo, no escapes, so
** piped sessions stay clean). Also the completion logic itself, which the
** `complete` command shares with Tab.
*/
#ifndef REPL_LINEIO_H
#define REPL_LINEIO_H

#include "repl.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Set up input for s: on a terminal, configure readline, catch SIGINT at
** the prompt and read the history file. Call once. */
void repl_lineio_init(repl_session *s);

/* The next line from stdin without its newline (malloc'ed; NULL at end of
** input). continuation selects the secondary prompt. *cancelled is set
** when Ctrl-C abandoned a continuation: the line returned is then a new
** first line, and the caller must drop what it had accumulated. */
char *repl_lineio_read(repl_session *s, bool continuation, bool *cancelled);

/* Lines longer than this are refused: a stray binary file or /dev/zero
** must end with an error, not exhaust memory. */
#define REPL_LINE_MAX (1 << 20)

/* Read one line from f, without its newline (or "\r\n"), into *line
** (malloc'ed; free it). Returns 1 for a line, 0 at end of input, and
** otherwise sets *why to a static message: -2 "NUL byte at column N" (the
** whole line was read and dropped; the next call reads the next line), or
** -1 when the input must be abandoned: "line too long (over 1048576
** bytes)" (the rest is left unread), a read error's strerror, or
** "interrupted" when Ctrl-C arrived (repl_host_interrupted). Linear in
** the line's length. */
int repl_getline(FILE *f, char **line, const char **why);

/* A SIGTERM or SIGHUP arrived while a command ran (terminal sessions):
** the loop should end; repl_lineio_finish saves the history and then
** dies of the signal. */
bool repl_lineio_terminated(void);

/* Save the history (terminal sessions with `set history on`) and restore
** the SIGINT disposition. */
void repl_lineio_finish(repl_session *s);

/* The history file: $XDG_STATE_HOME/shapedb/history (the directory is
** created) or ~/.shapedb_history when XDG_STATE_HOME is unset, empty or
** relative (the XDG spec says to ignore a relative path).
** malloc'ed; NULL when neither variable helps. */
char *repl_history_path(void);

/* Completion candidates for the text that starts at line[start] and ends
** the line, in context: command names and Lua globals for the first word;
** a command's subcommands, then its argument kind; Lua globals and fields
** on Lua lines. *files is set when they are file names (readline then
** marks directories). Candidates all start with the text; unsorted, may
** repeat. */
void repl_complete_line(repl_session *s, const char *line, size_t start,
                        repl_strv *out, bool *files);

#endif
